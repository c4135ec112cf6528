package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/docs"
	"github.com/shadow-dev/shadow/internal/suggest"
)

// versionLine is `shadow version`: the version, the VCS revision the
// binary was built from (debug.ReadBuildInfo's vcs.revision, with
// "+dirty" for uncommitted changes, as go version -m shows them) and the
// Go toolchain, as gh and gotestsum print theirs. A binary built with
// -buildvcs=false (CI's .ci/run) or outside a checkout has no revision,
// and says so.
func versionLine(version string) string {
	rev, when, dirty := "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "shadow %s", version)
	switch {
	case rev != "":
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		fmt.Fprintf(&b, " (revision %s", rev)
		if when != "" {
			fmt.Fprintf(&b, ", %s", when)
		}
		b.WriteString(")")
	default:
		b.WriteString(" (no VCS revision: built with -buildvcs=false or outside a git checkout)")
	}
	fmt.Fprintf(&b, " %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// helpCommand is `shadow help [COMMAND]`: cobra's, except that a topic it
// does not know is a usage error (exit 2), as gh's is; cobra printed
// "Unknown help topic" and exited 0.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "help for shadow or one of its commands",
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] == "spec" {
				// The spec's reference, as shipped with this binary.
				_, err := io.WriteString(c.OutOrStdout(), docs.Spec)
				return err
			}
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				var names []string
				for _, sc := range root.Commands() {
					if sc.IsAvailableCommand() {
						names = append(names, sc.Name())
					}
				}
				if near := suggest.Closest(strings.Join(args, " "), append(names, "spec")); near != "" {
					return usage("help: no command %q: did you mean `shadow help %s`?", strings.Join(args, " "), near)
				}
				return usage("help: no command %q (the commands: %s; shadow help spec: the spec's fields)", strings.Join(args, " "), strings.Join(names, ", "))
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var names []string
			if strings.HasPrefix("spec", toComplete) {
				names = append(names, "spec\tthe spec's fields (docs/spec.md)")
			}
			for _, sc := range root.Commands() {
				if sc.IsAvailableCommand() && strings.HasPrefix(sc.Name(), toComplete) {
					names = append(names, sc.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	}
}
