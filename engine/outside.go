package engine

import (
	"github.com/shadow-dev/shadow/engine/judge"

	"fmt"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine/checkout"
)

// applyOutside fills r.Outside from what the sandbox saw (capped) and
// marks r suspicious for every persistence write among it, and for the
// candidate's own edits of agent configs in the workspace.
func applyOutside(r *Result, h Hypothesis, o Outcome, env []string) {
	if o.Outside != nil {
		home, pathVar := checkout.EnvValue(env, "HOME"), checkout.EnvValue(env, "PATH")
		pathDirs := filepath.SplitList(pathVar)
		var why []string
		seen := map[string]bool{}
		for _, w := range o.Outside {
			if w.Kind == "more" {
				continue
			}
			if reason := checkout.PersistencePath(w.Path, home, pathDirs); reason != "" && !seen[w.Path] {
				seen[w.Path] = true
				if len(why) < 5 {
					why = append(why, fmt.Sprintf("%s %s (%s)", w.Kind, w.Path, reason))
				}
			}
		}
		if len(seen) > 0 {
			msg := "writes outside the workspace where programs run from or read their configuration: " + strings.Join(why, ", ")
			if len(seen) > len(why) {
				msg += fmt.Sprintf(" and %d more", len(seen)-len(why))
			}
			judge.AddSuspicious(r, msg)
		}
		r.Outside = checkout.CapOutside(o.Outside, home, pathDirs)
	}
	if risky := RiskyFiles(h); len(risky) > 0 {
		judge.AddSuspicious(r, "edits "+strings.Join(risky, ", ")+" in the workspace, which an agent, an editor or git runs or obeys when it opens the checkout (never applied without --force)")
	}
}
