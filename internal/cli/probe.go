package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/internal/sandbox/copy"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// probeCommand prints the sandbox mode this machine gives and why; with a
// failed probe, what to do about it. It always probes afresh (and
// refreshes the cache runs use).
func probeCommand(s Streams, version string) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "probe [--json]",
		Short: "which sandbox mode this machine gives, and why; the fix when it is not overlay",
		Args:  noArgs("usage: shadow probe [--json]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := defaultStore()
			if err != nil {
				return err
			}
			_ = os.Remove(store.ProbeCache())
			v := overlay.CachedProbe(store.SandboxDir(), store.ProbeCache(), version)
			copies := autoCopies(&v, store)
			if asJSON {
				enc := json.NewEncoder(s.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			_, err = fmt.Fprint(s.Out, records.ProbeText(v, copies))
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "the verdict as JSON")
	return c
}

// autoCopies turns a failed overlay verdict into what --mode auto does
// then: copy mode, when a copy of the workspace here can be made. It
// returns where the copies go, or "".
func autoCopies(v *overlay.Verdict, store snap.Store) string {
	if v.Mode == "overlay" {
		return ""
	}
	ws := probeWorkspace()
	base := copy.Base(store.SandboxDir(), ws)
	if copy.Usable(base, ws) != nil {
		return ""
	}
	v.Mode = "copy"
	v.Protection = "accidents only: each hypothesis runs as you, with no namespace, in its own copy of the workspace; the checkout is never written by shadow, but a hostile command can reach it by its path"
	return base
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
