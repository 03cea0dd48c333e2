// Package errgroup is a stub of golang.org/x/sync/errgroup.
package errgroup

import "sync"

// Group runs functions in goroutines.
type Group struct{ wg sync.WaitGroup }

func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() { defer g.wg.Done(); _ = f() }()
}

func (g *Group) TryGo(f func() error) bool { g.Go(f); return true }

func (g *Group) Wait() error { g.wg.Wait(); return nil }
