//go:build race

package readme

// raceBuild says the test binary is built with the race detector: the
// snippets are built the same way, so that they reuse the packages its
// build compiled.
const raceBuild = true
