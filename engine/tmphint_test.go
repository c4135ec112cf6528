package engine

import (
	"strings"
	"testing"
)

func TestTmpHint(t *testing.T) {
	ws := "/tmp/proj"
	for _, c := range []struct {
		text, tmp string
		mode      Mode
		want      string
	}{
		{"start command: /tmp/x/run.sh: no such file or directory", "", ModeOverlay, "hint: /tmp/x/run.sh is under /tmp, which is private to each hypothesis (a fresh tmpfs): put it in the workspace, or pass --tmp shared"},
		{"FileNotFoundError: [Errno 2] No such file or directory: '/tmp/fixtures/db.json'", "private", ModeCopy, "/tmp/fixtures/db.json is under /tmp"},
		{"cat: /var/tmp/seed.txt: No such file or directory", "", ModeOverlay, "/var/tmp/seed.txt is under /var/tmp"},
		// Not private: the host's /tmp is there, the file is really missing.
		{"start command: /tmp/x/run.sh: no such file or directory", "shared", ModeOverlay, ""},
		{"start command: /tmp/x/run.sh: no such file or directory", "", ModeCopy, ""},
		// Inside the workspace (which lies under /tmp here): it is mounted.
		{"open /tmp/proj/testdata/a.json: no such file or directory", "", ModeOverlay, ""},
		// /tmp named, nothing missing.
		{"wrote /tmp/cache/x", "", ModeOverlay, ""},
		{"/tmpfoo/x: no such file", "", ModeOverlay, ""},
	} {
		got := TmpHint(c.text, c.tmp, ws, c.mode)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("TmpHint(%q, %q, %s) = %q, want %q", c.text, c.tmp, c.mode, got, c.want)
		}
	}
}

func TestAddTmpHintKeepsTheReasonAndOneHint(t *testing.T) {
	why := "start command: /tmp/x/run.sh: no such file or directory"
	r := &Result{Status: StatusError, Reason: &why}
	addTmpHint(r, "", "/home/u/proj", ModeOverlay)
	if !strings.HasPrefix(*r.Reason, why+" (hint: /tmp/x/run.sh is under /tmp") {
		t.Errorf("reason %q", *r.Reason)
	}
	before := *r.Reason
	addTmpHint(r, "", "/home/u/proj", ModeOverlay)
	if *r.Reason != before {
		t.Errorf("a second hint: %q", *r.Reason)
	}
}
