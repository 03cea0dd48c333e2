package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTemporaryDirectoryIsRemovedWhenTheSampleEndsWell: the directory Open
// makes is gone after Close of a run without error, with what the run
// wrote in it.
func TestTemporaryDirectoryIsRemovedWhenTheSampleEndsWell(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	d, err := Open("", "temporaladk-test-")
	require.NoError(t, err)
	require.True(t, d.Temporary)
	require.NoError(t, os.WriteFile(filepath.Join(d.Path, "worker.log"), []byte("log"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(d.Path, "histories"), 0o755))
	var runErr error
	d.Close(&runErr)
	require.NoError(t, runErr)
	assert.NoDirExists(t, d.Path)
	left, err := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "temporaladk-test-*"))
	require.NoError(t, err)
	assert.Empty(t, left)
}

// TestTemporaryDirectoryIsKeptWhenTheSampleFails: a failed run keeps its
// directory and its error says where it is.
func TestTemporaryDirectoryIsKeptWhenTheSampleFails(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	d, err := Open("", "temporaladk-test-")
	require.NoError(t, err)
	failed := errors.New("the workflow failed")
	runErr := failed
	d.Close(&runErr)
	assert.DirExists(t, d.Path)
	assert.ErrorIs(t, runErr, failed)
	assert.EqualError(t, runErr, "the workflow failed (its data directory "+d.Path+" is kept)")
}

// TestNamedDirectoryIsKept: a directory the user named is created and
// never removed.
func TestNamedDirectoryIsKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d, err := Open(dir, "temporaladk-test-")
	require.NoError(t, err)
	assert.Equal(t, &Dir{Path: dir}, d)
	assert.DirExists(t, dir)
	var runErr error
	d.Close(&runErr)
	require.NoError(t, runErr)
	assert.DirExists(t, dir)
	runErr = errors.New("failed")
	d.Close(&runErr)
	assert.EqualError(t, runErr, "failed", "a named directory needs no mention")
}

func TestOpenRefusesBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := Open(filepath.Join(file, "data"), "x-")
	assert.ErrorContains(t, err, "data directory: ")
	_, err = Open("", "")
	assert.EqualError(t, err, `data directory: the prefix "" must name a temporary directory, without a path separator`)
	_, err = Open("", "a/b-")
	assert.ErrorContains(t, err, `the prefix "a/b-"`)
	var d *Dir
	d.Close(nil) // a nil Dir or result is a no-op
}
