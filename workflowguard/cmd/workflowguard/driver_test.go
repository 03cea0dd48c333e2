package main

import (
	"slices"
	"testing"
)

// TestOwnDriver checks which command lines the lean driver takes and which go to singlechecker.
func TestOwnDriver(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		ok       bool
		patterns []string
		flags    []string
	}{
		{"patterns", []string{"./...", "./b"}, true, []string{"./...", "./b"}, nil},
		{"providers with =", []string{"-providers=example.com/llm", "./..."}, true, []string{"./..."}, []string{"-providers=example.com/llm"}},
		{"providers as two words", []string{"--providers", "example.com/llm", "./..."}, true, []string{"./..."}, []string{"--providers", "example.com/llm"}},
		{"likely", []string{"-likely=false", "./..."}, true, []string{"./..."}, []string{"-likely=false"}},
		{"providers without a value", []string{"./...", "-providers"}, false, nil, nil},
		{"no pattern", nil, false, nil, nil},
		{"-fix goes to singlechecker", []string{"-fix", "./..."}, false, nil, nil},
		{"-test goes to singlechecker", []string{"-test=false", "./..."}, false, nil, nil},
		{"go vet probe", []string{"-V=full"}, false, nil, nil},
		{"go vet unit", []string{"/tmp/vet.cfg"}, false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			patterns, flags, ok := ownDriver(tt.args)
			if ok != tt.ok || ok && (!slices.Equal(patterns, tt.patterns) || !slices.Equal(flags, tt.flags)) {
				t.Errorf("ownDriver(%q) = %q, %q, %v; want %q, %q, %v", tt.args, patterns, flags, ok, tt.patterns, tt.flags, tt.ok)
			}
		})
	}
}

// TestFixRun checks which command lines run twice (apply the fixes, then check again) and what
// the second run is given.
func TestFixRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		ok   bool
		rest []string
	}{
		{"-fix", []string{"-fix", "./..."}, true, []string{"./..."}},
		{"--fix=true with another flag", []string{"--fix=true", "-test=false", "./..."}, true, []string{"-test=false", "./..."}},
		{"-fix=false", []string{"-fix=false", "./..."}, false, []string{"-fix=false", "./..."}},
		{"a package named fix", []string{"fix"}, false, []string{"fix"}},
		{"no -fix", []string{"./..."}, false, []string{"./..."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fixArgs, rest, ok := fixRun(tt.args)
			if ok != tt.ok || !slices.Equal(rest, tt.rest) || !slices.Equal(fixArgs, tt.args) {
				t.Errorf("fixRun(%q) = %q, %q, %v; want %q, %q, %v", tt.args, fixArgs, rest, ok, tt.args, tt.rest, tt.ok)
			}
		})
	}
}
