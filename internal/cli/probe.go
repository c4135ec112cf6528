package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/internal/sandbox"
)

// probeCommand prints the sandbox mode a run from here gets and why; with
// a failed probe, what runs do instead and the fix (sandbox.Explain, as
// the MCP tool shadow_probe). It always probes afresh (and refreshes the
// cache runs use).
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
			e := sandbox.Explain(store, probeWorkspace(), version, true)
			if asJSON {
				enc := json.NewEncoder(s.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(e)
			}
			_, err = fmt.Fprint(s.Out, e.Text())
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "the verdict as JSON")
	return c
}

// probeWorkspace is the workspace a run from here would use.
func probeWorkspace() string {
	cwd, _ := os.Getwd()
	return run.ProbeWorkspace(cwd)
}
