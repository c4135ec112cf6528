package overlay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

func TestOutermostKeepsOnlyTopMasks(t *testing.T) {
	got := outermost([]string{"/s/shadow/sandboxes", "/run/a.sock", "/s/shadow", "/s/shadow", "/s/shadowy", "/s/shadow/x.sock"})
	want := []string{"/run/a.sock", "/s/shadow", "/s/shadowy"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outermost = %v, want %v", got, want)
	}
}

// The sandbox base inside a masked state dir (the default layout) is not
// masked again: the state dir's mask hides it already, and it would be
// one tmpfs more per hypothesis.
func TestOverlayMaskInsideAMaskIsNoMount(t *testing.T) {
	probe := needOverlay(t)
	// Outside /tmp, which the hypothesis has a private one of (and the
	// package's directory may be under it: CI tests a clone in /tmp), so
	// in $HOME, which the hypothesis sees through its own layer.
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	state, err := os.MkdirTemp(home, ".shadow-masktest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	if state, err = filepath.Abs(state); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(state, "sandboxes")
	sb := New(base, probe.options).Mask(state)
	os.WriteFile(filepath.Join(state, "secret"), []byte("x"), 0o600)
	ws := t.TempDir()
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Env: os.Environ(), Output: &out, Hyp: engine.Hypothesis{Name: "h"},
		Command: []string{"sh", "-c", `grep -c " ` + state + `[/ ]" /proc/self/mountinfo; ls -A ` + state + `; echo end`}})
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("%v %+v\n%s", err, o, out.String())
	}
	if got := strings.TrimSpace(out.String()); got != "1\nend" {
		t.Errorf("inside: %q, want one mount (the state dir's, empty)", got)
	}
}
