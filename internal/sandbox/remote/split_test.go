package remote

import (
	"context"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

func TestSplitCommandLikeAShell(t *testing.T) {
	for in, want := range map[string][]string{
		`ssh`:                            {"ssh"},
		`ssh -F /dev/null  -p 22`:        {"ssh", "-F", "/dev/null", "-p", "22"},
		`ssh -i 'my key' -o "A=b c"`:     {"ssh", "-i", "my key", "-o", "A=b c"},
		`ssh -o "x\"y" a\ b`:             {"ssh", "-o", `x"y`, "a b"},
		`'/opt/my ssh/ssh' -v`:           {"/opt/my ssh/ssh", "-v"},
		"ssh\t-o\nProxyJump=j":           {"ssh", "-o", "ProxyJump=j"},
		`ssh -o 'a'"b"c`:                 {"ssh", "-o", "abc"},
		`ssh ""`:                         {"ssh", ""},
		`ssh "a\b"`:                      {"ssh", `a\b`},
		`ssh -o ProxyCommand='nc %h %p'`: {"ssh", "-o", "ProxyCommand=nc %h %p"},
	} {
		got, err := SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `  `, `ssh 'x`, `ssh "x`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
}

// The remote shell must get back exactly the words quoted.
func TestShellLineRoundTripsThroughSh(t *testing.T) {
	words := []string{"a b", "it's", `$HOME`, "`id`", "x\ny", "", "plain", `back\slash`, "*"}
	out, err := exec.Command("sh", "-c", `for a in `+shellLine(words...)+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	start := 0
	for i, c := range out {
		if c == 0 {
			got = append(got, string(out[start:i]))
			start = i + 1
		}
	}
	if !reflect.DeepEqual(got, words) {
		t.Fatalf("sh saw %q, want %q", got, words)
	}
}

// An ssh that is not OpenSSH gets no multiplexing options, and the user
// hears what is skipped.
func TestNotOpenSSHIsSaidAndSkipsMultiplexing(t *testing.T) {
	dir := t.TempDir()
	fake := dir + "/dbclient"
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'Dropbear v2022.83' >&2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHADOW_SSH_COMMAND", fake+" -y")
	var notices strings.Builder
	c, err := NewClient(dir+"/ctl", &notices)
	if err != nil {
		t.Fatal(err)
	}
	if c.openSSH || c.ctlDir != "" || !strings.Contains(notices.String(), "not OpenSSH") || !strings.Contains(notices.String(), "ControlMaster") {
		t.Fatalf("openSSH=%v ctlDir=%q notices=%q", c.openSSH, c.ctlDir, notices.String())
	}
	if args := c.Command("n1", "true").Args; strings.Join(args, " ") != fake+" -y -- n1 true" {
		t.Fatalf("args %q", args)
	}
	if m, err := c.StartMaster(context.Background(), "n1"); m != nil || err != nil {
		t.Fatalf("a master without OpenSSH: %v %v", m, err)
	}
	// OpenSSH gets the master's socket and keep-alives, after the user's
	// own arguments so theirs win.
	if _, err := exec.LookPath("ssh"); err == nil {
		t.Setenv("SHADOW_SSH_COMMAND", "ssh -o ControlPersist=1")
		c, err := NewClient(dir+"/ctl", &notices)
		if err != nil || !c.openSSH {
			t.Fatalf("OpenSSH not recognised: %v", err)
		}
		defer c.Close()
		got := strings.Join(c.Command("n1", "true").Args, " ")
		// ssh runs by the absolute path fsutil.Tool resolved (never a
		// planted one from a writable PATH directory).
		ssh, _ := fsutil.Tool("ssh")
		if !strings.HasPrefix(got, ssh+" -o ControlPersist=1 -o ControlMaster=no -o ControlPath="+c.ctlDir) || !strings.Contains(got, "ServerAliveInterval=5") || !strings.HasSuffix(got, "-- n1 true") {
			t.Fatalf("args %q", got)
		}
	}
}
