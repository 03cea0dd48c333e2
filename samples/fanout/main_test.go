package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnitBadFlagsAreClearErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-branches", "0"}, "-branches 0: want 1 to 100"},
		{[]string{"-branches", "ten"}, `invalid value "ten" for flag -branches`},
		{[]string{"-pool", "0"}, "-pool 0: want at least 1"},
		{[]string{"-address", "7233"}, `-address "7233" is not host:port`},
		{[]string{"-namespace", ""}, "-namespace is empty"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(tt.args, &stdout, &stderr), tt.args)
		assert.Contains(t, stderr.String(), tt.want, tt.args)
	}
	assert.Equal(t, 0, run([]string{"-h"}, &bytes.Buffer{}, &bytes.Buffer{}))
}
