package cli

import "github.com/spf13/cobra"

// Walk calls fn for c and every command under it, depth first, with the
// command's path from c ("shadow", "shadow kube job"). The checks that
// hold the documentation to the command tree (docs/cli.md names every
// command and flag; every flag README.md names exists) walk it this way.
func Walk(c *cobra.Command, fn func(path string, c *cobra.Command)) {
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		fn(path, c)
		for _, sub := range c.Commands() {
			walk(sub, path+" "+sub.Name())
		}
	}
	walk(c, c.Name())
}
