package engine

import (
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine/judge"
)

func TestNetHint(t *testing.T) {
	for _, c := range []struct {
		out, net string
		mode     Mode
		want     string // substring; "" for no hint
	}{
		{"OSError: [Errno 98] Address already in use: ('127.0.0.1', 8080)", "host", ModeOverlay, "binding port 8080"},
		{"listen tcp 127.0.0.1:8080: bind: address already in use", "host", ModeOverlay, "--net host shares the host's network, so hypotheses binding port 8080"},
		{"listen tcp 127.0.0.1:8080: bind: address already in use", "", ModeCopy, "copy mode shares"},
		{"listen tcp 127.0.0.1:8080: bind: address already in use", "", ModeOverlay, ""},
		{"psycopg2.OperationalError: connection to server at \"localhost\" (::1), port 5432 failed: Connection refused", "", ModeOverlay, "--host-port 5432"},
		{"Error: connect ECONNREFUSED 127.0.0.1:5432", "", ModeOverlay, "--host-port 5432"},
		{"Error: connect ECONNREFUSED 127.0.0.1:5432", "isolated", ModeOverlay, ""},
		{"Error: connect ECONNREFUSED 127.0.0.1:5432", "host", ModeOverlay, ""},
		{"dial tcp [::1]:6379: connect: connection refused", "", ModeRemote, "--host-port 6379"},
		{"Error: connect ECONNREFUSED 10.0.0.5:5432", "", ModeOverlay, ""},
	} {
		got := NetHint(c.out, c.net, c.mode)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("NetHint(%q, %q, %s) = %q, want %q", c.out, c.net, c.mode, got, c.want)
		}
	}
}

func TestAddNetHintKeepsTheHintWhole(t *testing.T) {
	long := strings.Repeat("x", 2*judge.ReasonMax)
	r := &Result{Status: StatusFailed, Reason: &long, OutputTail: "Error: connect ECONNREFUSED 127.0.0.1:5432\n"}
	addNetHint(r, "", ModeOverlay)
	if !strings.HasSuffix(*r.Reason, "(hint: each hypothesis has its own localhost; a host service on port 5432 is reachable with --host-port 5432)") || len(*r.Reason) > judge.ReasonMax+8 {
		t.Fatalf("reason %q", *r.Reason)
	}
	addNetHint(r, "", ModeOverlay)
	if strings.Count(*r.Reason, "hint:") != 1 {
		t.Fatalf("hint added twice: %q", *r.Reason)
	}
}
