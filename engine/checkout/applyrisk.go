package checkout

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/engine/spec"
	"github.com/shadow-dev/shadow/internal/gitrisk"
)

// What of a candidate git would obey once it is in the checkout
// (docs/report.md, "What git would obey"): edits into .git are refused
// when the spec is read, but a repository under another name
// (vendor/lib/{HEAD,config,objects/,refs/}), a config variable naming a
// program in any file, a .gitmodules pointing outside or a hook is code
// the user's next `git status` runs. Such a candidate is suspicious, and
// every apply (--apply, `shadow apply`, the TUI's, MCP's, merge --apply)
// refuses it without force: the rule is in ApplyHypothesisWith, the one
// place every apply writes through.

// maxRiskReasons bounds how many risks a suspicious reason names.
const maxRiskReasons = 5

// GitRisks lists what git would obey among h's own files and deletions,
// judged on the checkout at workspace with h applied; orig (the run's
// start state) gives each file's old content, so only what the candidate
// added counts.
func GitRisks(workspace string, h spec.Hypothesis, orig map[string]FileState) []gitrisk.Risk {
	if len(h.Files) == 0 && len(h.Deletes) == 0 {
		return nil
	}
	writes := map[string]bool{} // the files h writes and every directory above them
	for _, f := range h.Files {
		for p := f.Path; p != "." && !writes[p]; p = path.Dir(p) {
			writes[p] = true
		}
	}
	deleted := map[string]bool{}
	for _, d := range h.Deletes {
		deleted[d] = true
	}
	has := func(rel string) bool {
		if writes[rel] {
			return true
		}
		for p := rel; p != "." && p != ""; p = path.Dir(p) {
			if deleted[p] {
				return false
			}
		}
		_, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(rel)))
		return err == nil
	}
	changes := make([]gitrisk.Change, 0, len(h.Files)+len(h.Deletes))
	for _, f := range h.Files {
		o, ok := orig[f.Path]
		if !ok {
			o = ReadState(workspace, f.Path)
		}
		c := gitrisk.Change{Path: f.Path, Content: f.Content}
		if o.Exists && !o.Dir && !o.Link {
			c.Old = o.Content
		}
		changes = append(changes, c)
	}
	for _, d := range h.Deletes {
		changes = append(changes, gitrisk.Change{Path: d, Deleted: true})
	}
	return gitrisk.Check(changes, has, hooksPaths(workspace))
}

// GitRiskReason is the suspicious reason for GitRisks' findings, "" for
// none.
func GitRiskReason(workspace string, h spec.Hypothesis, orig map[string]FileState) string {
	rs := GitRisks(workspace, h, orig)
	if len(rs) == 0 {
		return ""
	}
	parts := make([]string, 0, maxRiskReasons+1)
	for i, r := range rs {
		if i == maxRiskReasons {
			parts = append(parts, fmt.Sprintf("and %d more", len(rs)-maxRiskReasons))
			break
		}
		parts = append(parts, r.String())
	}
	return "writes what git would obey in the checkout: " + strings.Join(parts, "; ") + " (never applied without --force)"
}

// hooksPaths are the checkout's own core.hooksPath directories that lie
// inside it, workspace-relative: its repository's config, then the user's
// (~/.gitconfig, $XDG_CONFIG_HOME/git/config), where a relative hooksPath
// is relative to each work tree (git-config(1), core.hooksPath).
func hooksPaths(workspace string) []string {
	var files []string
	dotgit := filepath.Join(workspace, ".git")
	if fi, err := os.Lstat(dotgit); err == nil && fi.IsDir() {
		files = append(files, filepath.Join(dotgit, "config"))
	} else if b, err := os.ReadFile(dotgit); err == nil {
		if g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
			g = strings.TrimSpace(g)
			if !filepath.IsAbs(g) {
				g = filepath.Join(workspace, g)
			}
			files = append(files, filepath.Join(g, "config"), filepath.Join(g, "config.worktree"))
			if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
				cd := strings.TrimSpace(string(c))
				if !filepath.IsAbs(cd) {
					cd = filepath.Join(g, cd)
				}
				files = append(files, filepath.Join(cd, "config"))
			}
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		if home, err := os.UserHomeDir(); err == nil {
			xdg = filepath.Join(home, ".config")
		}
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, e := range gitrisk.ParseConfig(b) {
			if e.Section != "core" || e.Sub != "" || e.Key != "hookspath" || e.Value == "" {
				continue
			}
			p := e.Value
			if filepath.IsAbs(p) {
				rel, err := filepath.Rel(workspace, p)
				if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					continue
				}
				p = rel
			}
			if p = filepath.ToSlash(filepath.Clean(p)); p != "." && !strings.HasPrefix(p, "../") {
				out = append(out, p)
			}
		}
	}
	return out
}
