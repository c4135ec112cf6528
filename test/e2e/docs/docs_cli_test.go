package docs

import (
	"os"
	"regexp"
	"strings"
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
	cli.Walk(cli.NewRoot(cli.Streams{}, "test"), func(path string, c *cobra.Command) {
		for p := c; p != nil; p = p.Parent() {
			if p.Hidden {
				return // internal entry points and what is under them
			}
		}
		if c.Name() == "help" || strings.HasPrefix(path, "shadow completion ") {
			return // cobra's: help, and the shells (bash, zsh, fish, powershell)
		}
		if path != "shadow" && path != "shadow completion" && !regexp.MustCompile(regexp.QuoteMeta(path)+`\b`).MatchString(doc) {
			t.Errorf("docs/cli.md does not name the command %q", path)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `([^A-Za-z0-9-]|$)`).MatchString(doc) {
				t.Errorf("docs/cli.md does not name the flag --%s of %q", f.Name, path)
			}
		})
	})
}
