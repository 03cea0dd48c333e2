package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/testsuite"
)

// runOnServer measures what differs between servers, the 200 sequential
// no-op activities (kit against plain) and how late retries start, on the
// server cfg.server names, and writes them to cfg.out as one section.
func runOnServer(ctx context.Context, cfg config, command string) error {
	start := time.Now()
	var srv *testsuite.DevServer
	var err error
	name := "testsuite's dev server (`temporal server start-dev` with `testsuite.FastDevServerArgs()`)"
	opts := testsuite.DevServerOptions{}
	if cfg.server != "dev" {
		name = "the server at " + cfg.server
		opts.Address = cfg.server
	}
	srv, err = testsuite.StartDevServer(ctx, opts)
	if err != nil {
		return err
	}
	defer srv.Stop()
	c := srv.Client()
	plain, kit, err := benchkit.StartWorkers(c, fmt.Sprintf("bench-server-%d", start.UnixNano()))
	if err != nil {
		return err
	}
	defer plain.Stop()
	defer kit.Stop()
	load := benchkit.Workload{Activities: 200}
	logf("  %s, %d pairs, on %s", load, cfg.seqPairs, cfg.server)
	pairs, err := benchkit.RunPairs(ctx, c, plain, kit, load, cfg.seqPairs, nil)
	if err != nil {
		return err
	}
	observed, err := benchkit.StartObservedWorker(c, fmt.Sprintf("bench-server-observed-%d", start.UnixNano()))
	if err != nil {
		return err
	}
	defer observed.Stop()
	retries, err := measureRetries(ctx, c, plain, observed, cfg.retries)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### On %s\n\n`%s` (%s, %v in all).\n\n", name, command, start.UTC().Format("2006-01-02 15:04 UTC"), time.Since(start).Round(time.Second))
	fmt.Fprintf(&b, "| workload | pairs | plain ms, median | kit ms, median | kit/plain, median pair | pairs' range |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.3f | %.3f – %.3f |\n\n", load, pairs.Ratio.N, pairs.Plain.Median, pairs.Kit.Median, pairs.Ratio.Median, pairs.Ratio.Min, pairs.Ratio.Max)
	b.WriteString(retryTable(retries))
	if err := os.WriteFile(cfg.out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	logf("wrote %s", cfg.out)
	return nil
}
