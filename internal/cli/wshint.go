package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/run"
)

// missingInPatch is the patch refusal of a file the workspace lacks
// (internal/patch: "patch changes calc.py, but it does not exist").
var missingInPatch = regexp.MustCompile(`patch \w+ (\S+), but it does not exist`)

// outsideRepoHint adds to a refusal of a patch naming a file the
// workspace lacks the likely cause when shadow ran in a directory outside
// any git checkout: the workspace became that directory (docs/cli.md, -C),
// and the file is in a checkout below it. err is returned otherwise.
func outsideRepoHint(err error, dir, cwd string) error {
	var re *run.Error
	if !errors.As(err, &re) || re.Fix != "" || dir != "" {
		return err
	}
	m := missingInPatch.FindStringSubmatch(re.Msg)
	if m == nil {
		return err
	}
	if out, gerr := fsutil.Command("git", "-C", cwd, "rev-parse", "--show-toplevel").Output(); gerr == nil && len(out) > 0 {
		return err // in a checkout: the workspace is its top-level, as meant
	}
	for _, pattern := range []string{filepath.Join(cwd, "*", m[1]), filepath.Join(cwd, "*", "*", m[1])} {
		found, _ := filepath.Glob(pattern)
		for _, f := range found {
			rel, _ := filepath.Rel(cwd, f)
			sub := rel[:len(rel)-len(m[1])-1]
			if fi, serr := os.Stat(filepath.Join(cwd, sub, ".git")); serr != nil || fi == nil {
				continue
			}
			re.Fix = fmt.Sprintf("the workspace is %s, the current directory, because it is in no git checkout; %s is in the checkout %s: run shadow there (cd %s) or pass -C %s", cwd, m[1], sub, sub, sub)
			return re
		}
	}
	re.Fix = fmt.Sprintf("the workspace is %s, the current directory, because it is in no git checkout: run shadow in the project's checkout, or pass -C DIR", cwd)
	return re
}
