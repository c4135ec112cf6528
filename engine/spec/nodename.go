package spec

import (
	"errors"
	"fmt"
	"strings"
)

// ValidNodeName refuses a node name (a spec's "remote", --remote,
// shadow_run's "remote") that ssh or rsync would read as an option or
// split: a destination is a Host of the ssh config or [user@]host
// (docs/remote.md). It lives with the node's plain data so that every
// front end checks a name as the remote sandbox does, without importing
// the sandbox.
func ValidNodeName(n string) error {
	switch {
	case n == "":
		return errors.New("empty node name")
	case strings.HasPrefix(n, "-"):
		return fmt.Errorf("node %q: a name may not start with '-'", n)
	case strings.ContainsAny(n, " \t\n\r\x00'\"\\:/"):
		return fmt.Errorf("node %q: a name may not hold blanks, quotes, ':' or '/' (put ports and users in ~/.ssh/config)", n)
	}
	return nil
}
