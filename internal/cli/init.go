package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/hypsrc"
	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/internal/run"
)

// SpecSchemaURL is where editors fetch the spec's JSON Schema (the
// repository's docs/schema/spec.v1.json, raw): `shadow init` writes it as
// the spec's "$schema", which the loader accepts and ignores.
const SpecSchemaURL = "https://raw.githubusercontent.com/shadow-dev/shadow/main/docs/schema/spec.v1.json"

// initCommand is `shadow init [FILE] [--from-patches DIR|--from-worktrees]`:
// a starter spec with its "$schema", the test command guessed from the
// project's files, a baseline, and the hypotheses of a directory of
// patches or of the repository's other worktrees (as --patch and
// --worktrees make them). It refuses to overwrite unless --force.
func initCommand(s Streams) *cobra.Command {
	var dir, fromPatches string
	var fromWorktrees, force bool
	c := &cobra.Command{
		Use:   "init [FILE] [--from-patches DIR|--from-worktrees] [-C DIR] [--force]",
		Short: "write a starter spec (default shadow.json) with its JSON Schema",
		Long: "shadow init writes a spec to FILE (default shadow.json in the current directory): its\n" +
			"\"$schema\" (editors complete and check the fields), the test command guessed from the\n" +
			"project (go.mod, package.json, Cargo.toml, pyproject.toml...), a baseline, and with\n" +
			"--from-patches DIR one hypothesis per *.diff/*.patch there, with --from-worktrees one\n" +
			"per other worktree of the repository (its commits and uncommitted work). Run it with\n" +
			"shadow FILE; edit the command and hypotheses as shadow help spec describes.",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usage("init: at most one FILE, got %q", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if fromPatches != "" && fromWorktrees {
				return usage("init: --from-patches and --from-worktrees are exclusive (shadow --patch DIR --worktrees mixes them at run time)")
			}
			cwd, err := os.Getwd()
			if err != nil {
				return specErr("current directory: %v", err)
			}
			ws, _, err := run.ResolveWorkspace(dir, cwd)
			if err != nil {
				return specErr("%v", err)
			}
			out := filepath.Join(cwd, "shadow.json")
			if len(args) == 1 {
				out = args[0]
				if !filepath.IsAbs(out) {
					out = filepath.Join(cwd, out)
				}
			}
			if _, err := os.Lstat(out); err == nil && !force {
				return specErr("%s exists: not overwritten (--force overwrites it)", out)
			}
			spec := engine.Spec{Schema: SpecSchemaURL, Command: guessCommand(ws), Hypotheses: []engine.SpecHyp{{Name: "baseline"}}}
			src := hypsrc.Sources{Worktrees: fromWorktrees}
			if fromPatches != "" {
				src.Patches = []string{fromPatches}
			}
			if src.Any() {
				more, err := src.Hypotheses(ws, cwd, map[string]bool{"baseline": true})
				if err != nil {
					return err
				}
				spec.Hypotheses = append(spec.Hypotheses, more...)
			}
			if err := spec.Validate(); err != nil {
				return specErr("%v", err)
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(spec); err != nil {
				return envErr("%v", err)
			}
			if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
				return envErr("cannot write %s: %v", out, err)
			}
			rel := out
			if r, err := filepath.Rel(cwd, out); err == nil && !filepath.IsAbs(r) && r[0] != '.' {
				rel = r
			}
			fmt.Fprintf(s.Out, "wrote %s: %d hypothesis(es), command %s\n", rel, len(spec.Hypotheses), records.Quote(spec.Command))
			fmt.Fprintf(s.Out, "next: edit it (its fields: shadow help spec), then: shadow --headless %s\n", rel)
			return nil
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", "", "workspace root")
	c.Flags().StringVar(&fromPatches, "from-patches", "", "one hypothesis per *.diff and *.patch in DIR")
	c.Flags().BoolVar(&fromWorktrees, "from-worktrees", false, "one hypothesis per other worktree of this repository")
	c.Flags().BoolVar(&force, "force", false, "overwrite FILE")
	return c
}

// guessCommand is the test command a project's files suggest, the one
// its README would name first; "make test" when nothing does.
func guessCommand(ws string) []string {
	has := func(name string) bool { _, err := os.Stat(filepath.Join(ws, name)); return err == nil }
	switch {
	case has("go.mod"):
		return []string{"go", "test", "./..."}
	case has("Cargo.toml"):
		return []string{"cargo", "test"}
	case has("package.json"):
		return []string{"npm", "test"}
	case has("pyproject.toml") || has("pytest.ini") || has("setup.py") || has("setup.cfg") || has("tox.ini"):
		return []string{"python3", "-m", "pytest", "-q"}
	case has("CMakeLists.txt"):
		return []string{"ctest", "--test-dir", "build"}
	}
	return []string{"make", "test"}
}
