package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shadow-dev/shadow/internal/cli"
)

// TestDocsNameEveryCommandAndFlag: every command of the command tree is in
// docs/cli.md as `shadow NAME`, and every flag of every command as
// --NAME, so a new one cannot go undocumented (docs/cli.md is the
// contract; `shadow help` is generated from the tree itself).
func TestDocsNameEveryCommandAndFlag(t *testing.T) {
	b, err := os.ReadFile("docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if path != "shadow" && path != "shadow completion" && !regexp.MustCompile(regexp.QuoteMeta(path)+`\b`).MatchString(doc) {
			t.Errorf("docs/cli.md does not name the command %q", path)
		}
		check := func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `([^A-Za-z0-9-]|$)`).MatchString(doc) {
				t.Errorf("docs/cli.md does not name the flag --%s of %q", f.Name, path)
			}
		}
		c.LocalFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			if path == "shadow completion" {
				continue // bash, zsh, fish, powershell: cobra's
			}
			walk(sub, path+" "+sub.Name())
		}
	}
	walk(cli.NewRoot(cli.Streams{}, "test"), "shadow")
}
