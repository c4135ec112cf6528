package engine

import (
	"strings"
	"testing"
)

// A candidate's writes outside the workspace: persistence paths make it
// suspicious (and are kept in the capped list), caches and scratch files
// do not; the list is capped with one "more" entry.
func TestOutsideWritesToPersistencePathsAreSuspicious(t *testing.T) {
	env := []string{"HOME=/home/u", "PATH=/home/u/.local/bin:/usr/bin"}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/home/u/.bashrc", true},
		{"/home/u/.ssh/authorized_keys", true},
		{"/home/u/.gitconfig", true},
		{"/home/u/.config/git/config", true},
		{"/home/u/.local/bin/git", true},
		{"/home/u/go/bin/gopls", true},
		{"/home/u/.cargo/bin/cargo", true},
		{"/home/u/.claude/settings.json", true},
		{"/home/u/.mcp.json", true},
		{"/home/u/.config/systemd/user/x.service", true},
		{"/home/u/.local/lib/python3.12/site-packages/usercustomize.py", true},
		{"/home/u/.local/lib/python3.12/site-packages/evil.pth", true},
		{"/home/u/src/other/.git/hooks/pre-commit", true},
		{"/etc/cron.d/x", true},
		{"/home/u/.cache/go-build", false},
		{"/home/u/notes.txt", false},
		{"/home/u/.local/share/app/data", false},
	} {
		r := &Result{}
		applyOutside(r, Hypothesis{}, Outcome{Outside: []OutsideWrite{{Path: c.path, Bytes: 3, Kind: "created"}}}, env)
		if got := r.Suspicious != nil; got != c.want {
			t.Errorf("%s: suspicious = %v (%v), want %v", c.path, got, r.Suspicious, c.want)
		}
		if len(r.Outside) != 1 {
			t.Errorf("%s: outside = %v", c.path, r.Outside)
		}
	}
}

func TestOutsideIsCappedKeepingPersistenceWrites(t *testing.T) {
	var ws []OutsideWrite
	for i := 0; i < 250; i++ {
		ws = append(ws, OutsideWrite{Path: "/home/u/scratch/" + strings.Repeat("a", i%7+1) + string(rune('a'+i%26)), Bytes: 10, Kind: "created"})
	}
	ws = append(ws, OutsideWrite{Path: "/home/u/.zshrc", Bytes: 1, Kind: "changed"}, OutsideWrite{Path: "(5 more not listed)", Bytes: 50, Kind: "more"})
	r := &Result{}
	applyOutside(r, Hypothesis{}, Outcome{Outside: ws}, []string{"HOME=/home/u"})
	if len(r.Outside) != maxOutsideReport+1 {
		t.Fatalf("%d entries, want %d and a more entry", len(r.Outside), maxOutsideReport)
	}
	if r.Outside[0].Path != "/home/u/.zshrc" {
		t.Errorf("the persistence write should come first: %v", r.Outside[0])
	}
	last := r.Outside[len(r.Outside)-1]
	if last.Kind != "more" || !strings.HasPrefix(last.Path, "(156 more") || last.Bytes != 50+151*10 {
		t.Errorf("more entry = %+v", last)
	}
	if r.Suspicious == nil || !strings.Contains(*r.Suspicious, "/home/u/.zshrc") {
		t.Errorf("suspicious = %v", r.Suspicious)
	}
}

// A candidate's own edits to what agents, editors and git obey in the
// checkout are suspicious and listed for apply's refusal; no outside list
// (a sandbox that cannot tell) stays null.
func TestCandidateEditingAgentConfigsIsSuspicious(t *testing.T) {
	h := Hypothesis{Files: []File{{Path: "calc.py"}, {Path: ".claude/settings.json"}, {Path: "sub/.mcp.json"}, {Path: ".vscode/tasks.json"}}, Deletes: []string{".envrc"}}
	got := RiskyFiles(h)
	if strings.Join(got, ",") != ".claude/settings.json,sub/.mcp.json,.vscode/tasks.json,.envrc" {
		t.Errorf("RiskyFiles = %v", got)
	}
	r := &Result{}
	applyOutside(r, h, Outcome{}, nil)
	if r.Suspicious == nil || !strings.Contains(*r.Suspicious, ".claude/settings.json") {
		t.Errorf("suspicious = %v", r.Suspicious)
	}
	if r.Outside != nil {
		t.Errorf("outside = %v, want null when the sandbox cannot tell", r.Outside)
	}
	r = &Result{}
	applyOutside(r, Hypothesis{Files: []File{{Path: "calc.py"}}}, Outcome{}, nil)
	if r.Suspicious != nil {
		t.Errorf("a plain fix is suspicious: %v", *r.Suspicious)
	}
}
