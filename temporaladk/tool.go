package temporaladk

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/temporaladk/adk-go/internal/idemkey"
)

// Idempotency is what a tool declares about repeating it.
type Idempotency uint8

const (
	// Undeclared is the zero value: the tool said nothing, so it is treated
	// as Effectful. Assuming otherwise is assuming in the expensive direction.
	Undeclared Idempotency = iota
	// ReadOnly tools change nothing; repeating one costs latency only.
	ReadOnly
	// Idempotent tools may change the world, but a repeat lands on the
	// first call's result.
	Idempotent
	// Effectful tools change the world on every call: the second call books a
	// second seat. Called without an idempotency key, they get one attempt
	// whatever a retry policy says; with one, the attempts their retry policy
	// gives, which under the default TOOL policy is one too.
	Effectful
)

var idempotencyNames = [...]string{"UNDECLARED", "READ_ONLY", "IDEMPOTENT", "EFFECTFUL"}

// String returns the declaration's name: UNDECLARED, READ_ONLY, IDEMPOTENT or
// EFFECTFUL.
func (i Idempotency) String() string {
	if int(i) < len(idempotencyNames) {
		return idempotencyNames[i]
	}
	return fmt.Sprintf("Idempotency(%d)", uint8(i))
}

// Valid reports whether i is one of the four declarations.
func (i Idempotency) Valid() bool { return int(i) < len(idempotencyNames) }

// TreatedAsEffectful reports whether a tool with this declaration is handled
// as effectful: Effectful itself, and Undeclared.
func (i Idempotency) TreatedAsEffectful() bool { return i == Effectful || i == Undeclared }

// MarshalText returns the declaration's name, as String does; a value that
// is not one of the four declarations is an error.
func (i Idempotency) MarshalText() ([]byte, error) {
	if !i.Valid() {
		return nil, fmt.Errorf("temporaladk: %v is not an idempotency declaration", i)
	}
	return []byte(i.String()), nil
}

// UnmarshalText sets i to the declaration named by text, in any letter case,
// with '-' or '_' ("read-only", "READ_ONLY"), so that a declaration reads from
// JSON, YAML or a flag. An unknown name is an error and leaves i unchanged.
func (i *Idempotency) UnmarshalText(text []byte) error {
	n := strings.ReplaceAll(strings.ToUpper(string(text)), "-", "_")
	for v, known := range idempotencyNames {
		if n == known {
			*i = Idempotency(v)
			return nil
		}
	}
	return fmt.Errorf("temporaladk: unknown idempotency %q (want one of UNDECLARED, READ_ONLY, IDEMPOTENT, EFFECTFUL)", text)
}

// Declaration is what the kit knows about one activity type, declared once
// at registration (interceptors.Options.Activities, keyed by activity type)
// so that untouched workflow code gets the policy: its class, what it says
// about repeating it, how long one call may take, and which input fields
// identify one logical call.
type Declaration struct {
	// Class is the activity's class, in any letter case. If not set, a
	// call's class comes from the tag on the workflow context, else the
	// interceptor's DefaultClass.
	Class Class
	// Idempotency is what the activity says about repeating it. The zero
	// value, Undeclared, is treated as Effectful for a tool: one attempt
	// when the call has no idempotency key, whatever a retry policy says. A
	// TOOL declaration keeps this rule whatever class tag a call carries.
	Idempotency Idempotency
	// Timeout is how long one call may take: it becomes StartToClose and the
	// heartbeat window is derived from it. If not set, the class policy's
	// StartToClose applies. Must not be negative.
	Timeout time.Duration
	// KeyFields are the fields of the activity's arguments (JSON names,
	// "a.b" for nested ones) whose values identify one logical call: a
	// plain name is a field of the first argument, "$2.passenger" a field
	// of the second, "$2" the whole second argument (and so on from 2; the
	// first argument's fields take no prefix). When set, every call carries an idempotency key derived from them, the
	// workflow's tenant and its run. If not set, a call has a key only when
	// the workflow gives one (WithIdempotencyKey): deriving one from every
	// argument would silently give retries back to a tool that does not
	// deduplicate.
	KeyFields []string
	// Input, if not nil, is an example of the activity's first argument:
	// each key field of the first argument must name a field it has, and not one the JSON form
	// leaves out when zero (omitempty, omitzero).
	Input any
	// RequiresApproval says that every call of the activity waits, in
	// workflow code and before its first attempt is scheduled or charged,
	// for a person's decision delivered through the kit's approval Update
	// (package approvals). Approved, the call runs under its normal
	// policy; denied, or undecided at its deadline, it ends with an
	// *ApprovalDeniedError and never runs. Calls of an activity declared
	// without it can ask for an approval one by one
	// (approvals.WithApproval).
	RequiresApproval bool
	// ApprovalTimeout is how long a call of an activity that RequiresApproval
	// waits for its decision. If not set, 24 hours
	// (approvals.DefaultTimeout). Must not be negative, and is set only with
	// RequiresApproval.
	ApprovalTimeout time.Duration
}

// declarationError reports a declaration that was refused, naming the
// activity and the field.
type declarationError struct {
	activity string // the activity type the declaration is for
	field    string // the Declaration field at fault
	reason   string
}

func (e *declarationError) Error() string {
	return fmt.Sprintf("temporaladk: declaration of %q: %s %s", e.activity, e.field, e.reason)
}

// Validate checks the declaration of activityType and returns the first
// problem as an error naming the activity and the field.
func (d Declaration) Validate(activityType string) error {
	fail := func(field, reason string) error {
		return &declarationError{activity: activityType, field: field, reason: reason}
	}
	switch {
	case strings.TrimSpace(activityType) == "":
		return fail("activity type", "is empty: a declaration is for a named activity type")
	case d.Class != "" && !canonicalClass(d.Class).Valid():
		return fail("Class", fmt.Sprintf("is %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", d.Class))
	case !d.Idempotency.Valid():
		return fail("Idempotency", fmt.Sprintf("is %v, which is not a declaration", d.Idempotency))
	case d.Timeout < 0:
		return fail("Timeout", fmt.Sprintf("is %v: it must not be negative (zero uses the class policy)", d.Timeout))
	case d.ApprovalTimeout < 0:
		return fail("ApprovalTimeout", fmt.Sprintf("is %v: it must not be negative (zero waits 24 hours)", d.ApprovalTimeout))
	case d.ApprovalTimeout > 0 && !d.RequiresApproval:
		return fail("ApprovalTimeout", fmt.Sprintf("is %v but RequiresApproval is false: set RequiresApproval for the calls to wait", d.ApprovalTimeout))
	}
	if err := idemkey.ValidateFields(d.KeyFields, d.Input); err != nil {
		return fail("KeyFields", err.Error())
	}
	return nil
}

// Clone returns a copy of d that shares no slice with it.
func (d Declaration) Clone() Declaration {
	d.KeyFields = slices.Clone(d.KeyFields)
	return d
}

// IsTool reports whether the declaration makes its activity a tool whose
// idempotency rule applies: declared TOOL (in any letter case), or declared
// EFFECTFUL.
func (d Declaration) IsTool() bool {
	return canonicalClass(d.Class) == Tool || d.Idempotency == Effectful
}
