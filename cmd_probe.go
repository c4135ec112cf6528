package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/shadow-dev/shadow/internal/clone"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// cmdProbe prints the sandbox mode this machine gives and why; with a
// failed probe, what to do about it. It always probes afresh (and refreshes
// the cache runs use).
func cmdProbe(args []string) int {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "JSON output")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return usageErr("usage: shadow probe [--json]")
	}
	root, err := snap.DefaultRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	}
	store := snap.Store{Root: root}
	_ = os.Remove(store.ProbeCache())
	v := overlay.CachedProbe(store.SandboxDir(), store.ProbeCache(), version)
	copyMode := autoCopies(&v, store)
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(v)
		return 0
	}
	fmt.Printf("mode: %s\n", v.Mode)
	fmt.Printf("why:  %s\n", v.Reason)
	fmt.Printf("protects against: %s\n", v.Protection)
	if v.Mode == "overlay" {
		fmt.Printf("upper dirs: %s\n", v.Upper)
		if !v.Proc {
			fmt.Println("note: a fresh /proc could not be mounted; commands see the outer process list")
		}
	}
	if v.Layer != "" {
		fmt.Printf("blocked by: %s\n", v.Layer)
	}
	if copyMode {
		fmt.Printf("step: %s (%s)\n", v.Stage, v.Errno)
		fmt.Printf("so:   --mode auto runs each hypothesis in its own copy of the workspace, in parallel (copies in %s)\n", clone.Base(store.SandboxDir(), probeWorkspace()))
	} else if v.Stage != "" && v.Mode != "overlay" {
		fmt.Printf("step: %s", v.Stage)
		if v.Errno != "" {
			fmt.Printf(" (%s)", v.Errno)
		}
		fmt.Println()
		fmt.Println("so:   runs fall back to in-place mode: one hypothesis at a time in the checkout itself, every")
		fmt.Println("      original journaled (fsynced) to the state dir first and restored after each run;")
		fmt.Println("      an interrupted run is restored by the next shadow on that workspace, or by `shadow gc`")
	}
	if v.Fix != "" {
		fmt.Printf("fix:  %s\n", strings.ReplaceAll(v.Fix, "\n", "\n      "))
	}
	return 0
}

// autoCopies turns a failed overlay verdict into what --mode auto does
// then: copy mode, when a copy of the workspace here can be made.
func autoCopies(v *overlay.Verdict, store snap.Store) bool {
	if v.Mode == "overlay" {
		return false
	}
	ws := probeWorkspace()
	if clone.Usable(clone.Base(store.SandboxDir(), ws), ws) != nil {
		return false
	}
	v.Mode = "copy"
	v.Protection = "accidents only: each hypothesis runs as you, with no namespace, in its own copy of the workspace; the checkout is never written by shadow, but a hostile command can reach it by its path"
	return true
}

// probeWorkspace is the workspace a run from here would use.
func probeWorkspace() string {
	cwd, _ := os.Getwd()
	ws, _, err := run.ResolveWorkspace("", cwd)
	if err != nil {
		return cwd
	}
	return ws
}
