package report

import (
	"fmt"
	"strings"
)

// SameFailure is the no-winner line when no hypothesis passed and every
// one that ran failed with the same reason: then the candidates are not
// what failed, the command or its environment is (no pytest, a missing
// tool, a test file that does not import), and "no hypothesis passed"
// alone sent people rewriting candidates. "" otherwise.
func SameFailure(r *Report) string {
	var reason string
	n := 0
	for _, h := range r.Hypotheses {
		switch {
		case h.Status == StatusPassed:
			return ""
		case h.Status == StatusCancelled:
			continue
		case h.Reason == nil:
			return ""
		case n > 0 && *h.Reason != reason:
			return ""
		}
		reason = *h.Reason
		n++
	}
	if n == 0 {
		return ""
	}
	every := "every hypothesis"
	if n == 1 {
		every = "the only hypothesis"
	}
	what := "the command or its environment is what to fix, not the candidates"
	if strings.HasPrefix(reason, "command not found") || strings.Contains(reason, "No module named") {
		what = "the command cannot run here: install it where the command runs, or give the command the project uses"
	}
	if r.Subdir != "" && r.Subdir != "." {
		// The command ran in the current directory's counterpart (docs/cli.md,
		// -C): a suite that must run at the root fails there in every
		// hypothesis alike (an import of the project's own module, no
		// go.mod, no package.json).
		what = fmt.Sprintf("the command ran in %s/, the counterpart of the directory shadow was started in; if it must run at the workspace root, run shadow there (cd %s) or give -C %s from outside it; otherwise %s", r.Subdir, r.Workspace, r.Workspace, what)
	}
	return fmt.Sprintf("no hypothesis passed: %s failed the same way (%s): %s", every, reason, what)
}

// sealNote is the text report's header part for a seal: ", sealed by
// landlock abi 7", or ", guards against accidents only" where nothing
// sealed a copy or in-place command.
func sealNote(seal string) string {
	switch {
	case seal == "":
		return ""
	case strings.HasPrefix(seal, "none"):
		return ", unsealed: guards against accidents only"
	}
	return ", sealed by " + seal
}
