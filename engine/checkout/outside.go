package checkout

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine/report"
	"github.com/shadow-dev/shadow/engine/spec"
)

// What a hypothesis wrote outside the workspace (report field "outside")
// and which of it tries to outlive the run. In overlay mode every such
// write went to the hypothesis's own upper dir and is gone: a candidate
// that still wrote a shell rc file, an ssh key or a git hook tried to
// persist past its sandbox, or to reach whoever runs next, which no fix
// needs; it is suspicious and does not win (docs/report.md).

// MaxOutsideReport caps the report's list; the rest is summed in one
// "more" entry.
const MaxOutsideReport = 100

// persistenceHome are paths relative to $HOME a program reads and runs,
// or that decide what runs, the next time a shell, git, ssh, cron,
// systemd, python or an agent starts: a file there or below is a
// persistence write. PATH directories are added from the environment.
var persistenceHome = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
	".config/fish", ".kshrc", ".cshrc", ".tcshrc", ".inputrc", ".xprofile", ".xsessionrc",
	".ssh", ".gitconfig", ".config/git", ".gnupg",
	".local/bin", "bin", "go/bin", ".cargo/bin", ".cargo/config", ".cargo/config.toml", ".pyenv/shims", ".npmrc", ".yarnrc",
	".claude", ".claude.json", ".codex", ".mcp.json", ".vscode", ".cursor", ".gemini", ".config/claude",
	".config/systemd/user", ".config/autostart", ".config/environment.d",
	".pam_environment", ".forward", ".netrc",
}

// persistenceSystem are absolute paths (a root hypothesis with --writable
// over them) of the same kind.
var persistenceSystem = []string{"/etc", "/var/spool/cron", "/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin", "/root/.ssh"}

// agentConfigs are workspace paths an agent or an editor reads as its
// instructions or runs commands from when it opens the checkout: a
// candidate's own edit there is never applied without --force.
var agentConfigs = []string{".claude", ".codex", ".mcp.json", ".vscode", ".cursor", ".gemini", ".envrc", ".git/hooks", ".git/config"}

// PersistencePath says why p, a path written outside the workspace, is a
// persistence write ("" when it is not). home is the command's $HOME,
// pathDirs its PATH.
func PersistencePath(p, home string, pathDirs []string) string {
	p = filepath.Clean(p)
	for _, d := range pathDirs {
		if filepath.IsAbs(d) && filepath.Dir(p) == filepath.Clean(d) {
			return "a program in " + d + ", on PATH"
		}
	}
	base := filepath.Base(p)
	switch {
	case base == "usercustomize.py" || base == "sitecustomize.py":
		return "python runs it at every start"
	case strings.HasSuffix(base, ".pth") && strings.Contains(p, "-packages"+string(filepath.Separator)):
		return "python runs its import lines at every start"
	}
	if home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			rel = filepath.ToSlash(rel)
			for _, q := range persistenceHome {
				if rel == q || strings.HasPrefix(rel, q+"/") {
					return "~/" + q
				}
			}
			if strings.Contains(rel, "/.git/hooks/") || strings.HasSuffix(rel, "/.git/config") {
				return "a git repository's hooks or config"
			}
		}
	}
	for _, q := range persistenceSystem {
		if p == q || strings.HasPrefix(p, q+"/") {
			return q
		}
	}
	return ""
}

// CapOutside keeps every persistence write and then the rest, in path
// order, up to MaxOutsideReport entries; what is left is one "more"
// entry with the bytes it held.
func CapOutside(ws []report.OutsideWrite, home string, pathDirs []string) []report.OutsideWrite {
	out := make([]report.OutsideWrite, 0, len(ws))
	var rest []report.OutsideWrite
	more, moreBytes := 0, int64(0)
	for _, w := range ws {
		switch {
		case w.Kind == "more":
			var n int
			if _, err := fmt.Sscanf(w.Path, "(%d more", &n); err == nil {
				more += n
			}
			moreBytes += w.Bytes
		case PersistencePath(w.Path, home, pathDirs) != "":
			out = append(out, w)
		default:
			rest = append(rest, w)
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Path < rest[j].Path })
	for _, w := range rest {
		if len(out) < MaxOutsideReport {
			out = append(out, w)
			continue
		}
		more++
		moreBytes += w.Bytes
	}
	if more > 0 {
		out = append(out, report.OutsideWrite{Path: fmt.Sprintf("(%d more not listed)", more), Bytes: moreBytes, Kind: "more"})
	}
	return out
}

// RiskyFiles lists the hypothesis's own files and deletions that an
// agent, an editor or git obeys when it opens the checkout (agent and
// editor configs, .envrc, git hooks and config): `--apply` and `shadow
// apply` refuse to write them without --force.
func RiskyFiles(h spec.Hypothesis) []string {
	var out []string
	check := func(p string) {
		for _, a := range agentConfigs {
			if p == a || strings.HasPrefix(p, a+"/") || path.Base(p) == ".mcp.json" {
				out = append(out, p)
				return
			}
		}
	}
	for _, f := range h.Files {
		check(f.Path)
	}
	for _, d := range h.Deletes {
		check(d)
	}
	return out
}

// RiskyError is a refusal to apply what RiskyFiles and GitRisks name;
// nothing was written.
type RiskyError struct {
	Paths []string
	// Why has one entry per path: what obeys it.
	Why []string
}

func (e *RiskyError) Error() string {
	parts := make([]string, len(e.Paths))
	for i, p := range e.Paths {
		parts[i] = p
		if i < len(e.Why) && e.Why[i] != "" {
			parts[i] += " (" + e.Why[i] + ")"
		}
	}
	return "not applied: the candidate writes " + strings.Join(parts, "; ") + ", which an agent, an editor or git runs or obeys in the checkout; nothing was written; review the diff and apply with --force"
}

// riskyApply is the *RiskyError for h, or nil.
func riskyApply(workspace string, h spec.Hypothesis, orig map[string]FileState) error {
	e := &RiskyError{}
	for _, p := range RiskyFiles(h) {
		e.Paths = append(e.Paths, p)
		e.Why = append(e.Why, "an agent's, an editor's or git's configuration")
	}
	for _, r := range GitRisks(workspace, h, orig) {
		e.Paths = append(e.Paths, r.Path)
		e.Why = append(e.Why, r.Why)
	}
	if len(e.Paths) == 0 {
		return nil
	}
	return e
}

// EnvValue is the last value of key in env ("" when unset).
func EnvValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	return v
}
