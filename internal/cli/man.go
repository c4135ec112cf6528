package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manCommand is the hidden `shadow man DIR`: a man page per command
// (shadow.1, shadow-apply.1, ...) written by cobra's doc package from the
// same command tree and help texts the binary answers -h with, so they
// cannot drift (packagers: `shadow man debian/man`, or
// `go run . man docs/man`).
func manCommand(root *cobra.Command, version string) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "write shadow's man pages (section 1) into DIR",
		Hidden: true,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("man: want one DIR, where the pages are written")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return envErr("man: %v", err)
			}
			hdr := &doc.GenManHeader{Title: "SHADOW", Section: "1", Source: "shadow " + version, Manual: "shadow manual"}
			root.DisableAutoGenTag = true
			if err := doc.GenManTree(root, hdr, args[0]); err != nil {
				return envErr("man: writing the pages into %s: %v", args[0], err)
			}
			fmt.Fprintf(c.OutOrStdout(), "man pages written to %s (man -l %s/shadow.1)\n", args[0], args[0])
			return nil
		},
	}
}
