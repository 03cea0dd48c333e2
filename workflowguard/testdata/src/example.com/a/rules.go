// Package a holds workflows: every rule, and every case that must stay quiet.
package a

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"io"
	"math/rand"
	randv2 "math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"
	"github.com/openai/openai-go"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/grpc"
)

func ModelWorkflow(ctx workflow.Context) error { // want ModelWorkflow:`^reaches\(ADK-W001 a\.ModelWorkflow → \(github\.com/openai/openai-go\.Client\)\.NewChatCompletion\)$`
	client := openai.NewClient()                                   // constructing a client makes no request
	_ = openai.String("pure")                                      // a value helper is not a model call
	_, err := client.NewChatCompletion(context.Background(), "hi") // want `^ADK-W001 model provider call on the workflow path \(\(github.com/openai/openai-go.Client\).NewChatCompletion\); move the call into an activity`
	return err
}

func RandomWorkflow(ctx workflow.Context) { // want RandomWorkflow:`^reaches\(ADK-W002 a\.RandomWorkflow → math/rand\.Float64; ADK-W003 a\.RandomWorkflow → .*NextBackOff, which stops at MaxElapsedTime on the wall clock\)$`
	_ = rand.Float64()                 // want `^ADK-W002 random draw on the workflow path \(math/rand.Float64\); draw from workflow.GetRandomStream`
	_ = rand.NormFloat64()             // want `math/rand.NormFloat64`
	_ = rand.ExpFloat64()              // want `math/rand.ExpFloat64`
	_ = rand.Intn(10)                  // want `math/rand.Intn`
	_ = rand.Perm(3)                   // want `math/rand.Perm`
	rand.Shuffle(3, func(i, j int) {}) // want `math/rand.Shuffle`
	_ = randv2.N(10 * time.Second)     // want `ADK-W002 .*\(math/rand/v2.N\)`
	_ = randv2.Uint64()                // want `math/rand/v2.Uint64`
	buf := make([]byte, 8)
	_, _ = crand.Read(buf)                // want `ADK-W002 .*\(crypto/rand.Read\)`
	_, _ = io.ReadFull(crand.Reader, buf) // want `ADK-W002 .*\(crypto/rand.Reader\)`
	_ = uuid.NewString()                  // want `ADK-W002 .*\(github.com/google/uuid.NewString\); generate the ID with uuid.NewRandomFromReader`
	_ = uuid.Must(uuid.NewRandom())       // want `github.com/google/uuid.NewRandom\)`
	_ = uuid.New()                        // want `github.com/google/uuid.New\)`
	bo := backoff.NewExponentialBackOff()
	_ = bo.NextBackOff() // want `ADK-W002 .*\(\(\*github.com/cenkalti/backoff/v4.ExponentialBackOff\).NextBackOff\); let the activity RetryPolicy back off` `ADK-W003 .*NextBackOff, which stops at MaxElapsedTime on the wall clock\); take the deadline from workflow time`
}

func SeededWorkflow(ctx workflow.Context) { // want SeededWorkflow:`^reaches\(ADK-W002 a\.SeededWorkflow → \(\*math/rand\.Rand\)\.Intn on a source seeded from time\.Now; ADK-W003 a\.SeededWorkflow → time\.Now\)$`
	clockSeeded := rand.New(rand.NewSource(time.Now().UnixNano())) // want `ADK-W003 .*\(time.Now\)`
	_ = clockSeeded.Intn(3)                                        // want `ADK-W002 .*\(\(\*math/rand.Rand\).Intn on a source seeded from time.Now\)`
	drawSeeded := rand.New(rand.NewSource(rand.Int63()))           // want `math/rand.Int63\)`
	_ = drawSeeded.Float64()                                       // want `seeded from math/rand.Int63`
	src := randv2.NewPCG(uint64(time.Now().UnixNano()), 1)         // want `time.Now`
	viaVar := randv2.New(src)
	_ = viaVar.IntN(3)     // want `\(\*math/rand/v2.Rand\).IntN on a source seeded from time.Now`
	_ = packageRNG.Intn(3) // want `seeded from time.Now`

	// Deterministic: the workflow's own random stream, and fixed seeds.
	stream := randv2.New(workflow.GetRandomStream(ctx, "jitter"))
	_ = stream.Float64()
	fixed := randv2.New(randv2.NewPCG(1, 2))
	_ = fixed.IntN(3)
	id, _ := uuid.NewRandomFromReader(workflow.GetRandomStream(ctx, "ids"))
	_ = id.String()
}

// packageRNG is seeded from the clock when the package loads; that read is not on the workflow
// path, but every draw from it is.
var packageRNG = rand.New(rand.NewSource(time.Now().UnixNano()))

func ClockWorkflow(ctx workflow.Context) { // want ClockWorkflow:`^reaches\(ADK-W003 a\.ClockWorkflow → time\.Now\)$`
	start := time.Now()                        // want `^ADK-W003 wall clock on the workflow path \(time.Now\); use workflow.Now\(ctx\)`
	_ = time.Since(start)                      // want `\(time.Since\); use workflow.Now`
	_ = time.Until(start)                      // want `\(time.Until\)`
	time.Sleep(time.Second)                    // want `\(time.Sleep\); use workflow.Sleep\(ctx, d\) or workflow.NewTimer\(ctx, d\)`
	<-time.After(time.Second)                  // want `\(time.After\)`
	_ = time.AfterFunc(time.Second, func() {}) // want `\(time.AfterFunc\)`
	_ = time.Tick(time.Second)                 // want `\(time.Tick\)`
	_ = time.NewTimer(time.Second)             // want `\(time.NewTimer\)`
	_ = time.NewTicker(time.Second)            // want `\(time.NewTicker\)`

	// The workflow clock and pure time arithmetic are fine.
	_ = workflow.Now(ctx).Add(time.Minute)
	_ = workflow.Sleep(ctx, time.Second)
	_ = workflow.NewTimer(ctx, time.Second)
	_ = time.Unix(0, 0).Add(2 * time.Second)
}

func IOWorkflow(ctx workflow.Context) { // want IOWorkflow:`^reaches\(ADK-W004 a\.IOWorkflow → net/http\.Get\)$`
	_, _ = http.Get("http://example.com")                       // want `^ADK-W004 network, process, environment or file I/O on the workflow path \(net/http.Get\); move the call into an activity`
	req, _ := http.NewRequest("GET", "http://example.com", nil) // building a request is not I/O
	_, _ = http.DefaultClient.Do(req)                           // want `\(\(\*net/http.Client\).Do\)`
	_, _ = net.Dial("tcp", "example.com:80")                    // want `\(net.Dial\)`
	_ = exec.Command("true").Run()                              // want `\(\(\*os/exec.Cmd\).Run\)`
	db, _ := sql.Open("postgres", "")                           // want `\(database/sql.Open\)`
	_, _ = db.Query("SELECT 1")                                 // want `\(\(\*database/sql.DB\).Query\)`
	_, _ = grpc.NewClient("localhost:7233")                     // want `\(google.golang.org/grpc.NewClient\)`
}
