// Package devserver runs the Temporal CLI dev server for tests and samples.
//
// It finds the Temporal CLI (or builds it once from the Go module proxy),
// starts `temporal server start-dev` on a free loopback port in its own
// process group, waits until the namespace answers, and stops the whole
// process group when asked. The public wrappers live in package testsuite.
//
//	s, err := devserver.Start(ctx, devserver.Options{})
//	if err != nil { ... }
//	defer s.Stop()
//	c := s.Client() // connected to s.Address(), namespace "default"
package devserver
