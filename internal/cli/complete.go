package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/internal/hypsrc"
	"github.com/shadow-dev/shadow/internal/records"
)

// Dynamic completion (cobra's __complete, which the scripts of `shadow
// completion bash|zsh|fish` call): spec files for a run, run ids and
// hypothesis names for show and apply (`shadow show @last/<TAB>`), patch
// files and git refs for --patch and --ref.

// completeSpec offers *.json files for SPEC, once.
func completeSpec(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	// (ArgsLenAtDash is 0 while cobra completes: not a test of a --.)
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveDefault // the command's own words
	}
	return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
}

// completeRef offers RUN (and @last) and, once a RUN/ is typed, that
// run's hypotheses; withHyp: only RUN/HYP makes sense (apply).
func completeRef(withHyp bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		dir, _ := c.Flags().GetString("dir")
		ws, store, err := openRecords(dir)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if runRef, _, ok := strings.Cut(toComplete, "/"); ok {
			ri, _, err := records.Find(store, ws, runRef)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, r := range ri.Results {
				out = append(out, runRef+"/"+r.Name+"\t"+r.Status)
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		ids, err := store.RunIDs(ws)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		suffix := ""
		if withHyp {
			suffix = "/"
		}
		out := []string{"@last" + suffix + "\tthe newest run"}
		for i := len(ids) - 1; i >= 0 && len(out) < 30; i-- {
			out = append(out, ids[i]+suffix)
		}
		dirv := cobra.ShellCompDirectiveNoFileComp
		if withHyp {
			dirv |= cobra.ShellCompDirectiveNoSpace
		}
		return out, dirv
	}
}

// flagValues are the values of the run flags that take a word, with what
// each means (docs/cli.md), offered by completion; TestFlagValuesComplete
// holds them to what the flags accept.
var flagValues = map[string][]string{
	"mode":  {"auto\tthe best sandbox this machine gives (shadow probe)", "overlay\tnamespaces and overlayfs", "copy\ta copy of the workspace per hypothesis", "inplace\tin the checkout, one at a time, restored after"},
	"net":   {"private\ta network namespace per hypothesis, HTTP(S) out through a proxy", "isolated\tloopback only", "host\tthe host's network"},
	"tmp":   {"private\ta tmpfs per hypothesis", "shared\tthe host's /tmp and /var/tmp"},
	"upper": {"disk\tbeside the state directory", "ram\ta tmpfs per hypothesis"},
	"color": {"auto\ton a terminal, unless NO_COLOR is set", "always", "never"},
}

// registerRunCompletion adds the run's completions to c (the root, tui).
func registerRunCompletion(c *cobra.Command) {
	c.ValidArgsFunction = completeSpec
	for name, vals := range flagValues {
		_ = c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
	}
	_ = c.RegisterFlagCompletionFunc("patch", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"diff", "patch"}, cobra.ShellCompDirectiveFilterFileExt
	})
	_ = c.RegisterFlagCompletionFunc("ref", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		dir, _ := c.Flags().GetString("dir")
		if dir == "" {
			dir, _ = os.Getwd()
		}
		out, err := hypsrc.Refs(dir)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}

// wireCompletion sets the completions of the tree's commands.
func wireCompletion(root *cobra.Command) {
	registerRunCompletion(root)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "tui":
			registerRunCompletion(c)
		case "show":
			c.ValidArgsFunction = completeRef(false)
		case "apply":
			c.ValidArgsFunction = completeRef(true)
		}
	}
}
