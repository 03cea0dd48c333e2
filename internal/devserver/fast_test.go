package devserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"
)

func TestStartArgsCarryFastConfigUnlessPlain(t *testing.T) {
	fast := FastArgs()
	if len(fast) == 0 {
		t.Fatal("FastArgs is empty")
	}
	args := startArgs(Options{Port: 7233, Namespace: "default", LogLevel: "warn"})
	if !containsRun(args, fast) {
		t.Errorf("default start args %q do not carry the fast config %q", args, fast)
	}
	plain := startArgs(Options{Port: 7233, Namespace: "default", LogLevel: "warn", PlainStartDev: true})
	for _, v := range FastDynamicConfig() {
		if slices.Contains(plain, v.Arg()) {
			t.Errorf("PlainStartDev args %q still carry %s", plain, v.Arg())
		}
	}
	if !slices.Contains(plain, "frontend.enableServerVersionCheck=false") {
		t.Errorf("PlainStartDev args %q let the server call the internet", plain)
	}
}

// ExtraArgs come last: the CLI keeps the last value given for a key, so a
// caller can override any fast value.
func TestExtraArgsComeAfterFastConfig(t *testing.T) {
	override := []string{"--dynamic-config-value", "matching.numTaskqueueReadPartitions=4"}
	args := startArgs(Options{Port: 7233, Namespace: "default", LogLevel: "warn", ExtraArgs: override})
	if !slices.Equal(args[len(args)-2:], override) {
		t.Errorf("start args %q do not end with the extra args %q", args, override)
	}
}

// Each value is one the CLI accepts: a key with a dot and a JSON value, and
// no key twice.
func TestFastDynamicConfigIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range FastDynamicConfig() {
		if !strings.Contains(v.Key, ".") || strings.ContainsAny(v.Key, "= ") {
			t.Errorf("key %q is not a dynamic config key", v.Key)
		}
		if seen[v.Key] {
			t.Errorf("key %q is set twice", v.Key)
		}
		seen[v.Key] = true
		for _, value := range []string{v.Value, v.Default} {
			if !json.Valid([]byte(value)) {
				t.Errorf("%s: value %s is not JSON, which the CLI refuses", v.Key, value)
			}
		}
		if v.Value == v.Default {
			t.Errorf("%s: the fast value is the server's default", v.Key)
		}
		if v.Why == "" {
			t.Errorf("%s: no reason given", v.Key)
		}
	}
	a, b := FastDynamicConfig(), FastDynamicConfig()
	a[0].Value = "changed"
	if b[0].Value == "changed" {
		t.Error("FastDynamicConfig returns a shared slice")
	}
}

// containsRun reports whether want appears in args as a contiguous run.
func containsRun(args, want []string) bool {
	for i := 0; i+len(want) <= len(args); i++ {
		if slices.Equal(args[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

func TestClientOptionsSkipCompressionUnlessChosen(t *testing.T) {
	opts := clientOptions(Options{Namespace: "ns"}, "127.0.0.1:7233")
	if _, ok := opts.ConnectionOptions.GrpcCompression.(*client.GrpcCompressionNone); !ok {
		t.Errorf("default compression %T, want none on loopback", opts.ConnectionOptions.GrpcCompression)
	}
	if opts.HostPort != "127.0.0.1:7233" || opts.Namespace != "ns" || opts.Logger == nil {
		t.Errorf("options %+v: want the server's address and namespace and a logger", opts)
	}
	chosen := Options{ClientOptions: client.Options{ConnectionOptions: client.ConnectionOptions{GrpcCompression: &client.GrpcCompressionGzip{}}}}
	if _, ok := clientOptions(chosen, "a:1").ConnectionOptions.GrpcCompression.(*client.GrpcCompressionGzip); !ok {
		t.Error("a chosen compression was replaced")
	}
}
