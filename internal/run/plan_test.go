package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

func mustSpec(t *testing.T, js string) *engine.Spec {
	t.Helper()
	s, err := engine.DecodeSpec([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// planIn plans spec in a fresh workspace and state dir, in place (no
// probe needed).
func planIn(t *testing.T, js string, o Options) (*Plan, error) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o.Cwd == "" {
		o.Cwd = ws
	}
	if o.Mode == "" {
		o.Mode = ModeInplace
	}
	return NewPlan(context.Background(), mustSpec(t, js), ws, o)
}

func TestParseValues(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mode
		ok   bool
	}{{"", ModeAuto, true}, {"auto", ModeAuto, true}, {"overlay", ModeOverlay, true}, {"inplace", ModeInplace, true}, {"copy", ModeCopy, true}, {"fast", "", false}, {"Overlay", "", false}} {
		if m, err := ParseMode(c.in); m != c.want || (err == nil) != c.ok {
			t.Errorf("ParseMode(%q) = %q, %v", c.in, m, err)
		}
	}
	if _, err := ParseNet("lan"); err == nil {
		t.Error("ParseNet(lan) accepted")
	}
	if n, err := ParseNet("isolated"); n != NetIsolated || err != nil {
		t.Errorf("ParseNet(isolated) = %q, %v", n, err)
	}
	if _, err := ParseTmp("ram"); err == nil {
		t.Error("ParseTmp(ram) accepted")
	}
	for _, bad := range []string{"soon", "0s", "-5m", ""} {
		if _, err := ParseTimeout(bad); err == nil {
			t.Errorf("ParseTimeout(%q) accepted", bad)
		}
	}
	var d time.Duration
	if err := (TimeoutValue{D: &d}).Set("90s"); err != nil || d != 90*time.Second {
		t.Errorf("TimeoutValue.Set(90s) = %v, %v", d, err)
	}
	var m Mode
	if err := m.Set("copy-on-write"); err == nil {
		t.Error("Mode.Set accepted a mode that does not exist")
	}
}

func TestPlanPrecedence(t *testing.T) {
	const spec = `{"command":["sh"],"timeout":"2m","jobs":3,"net":"host","tmp":"shared","hypotheses":[{"name":"a","edits":[{"path":"a.txt","content":"b"}]}]}`
	p, err := planIn(t, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Config()
	if c.Timeout != 2*time.Minute || c.Jobs != 3 || c.Net != "host" || c.Tmp != "shared" || strings.Join(c.Command, " ") != "sh" {
		t.Errorf("the spec's values were not used: %+v", c)
	}
	p, err = planIn(t, spec, Options{Timeout: time.Minute, Jobs: 5, Command: []string{"env", "x"}, Baseline: true})
	if err != nil {
		t.Fatal(err)
	}
	c = p.Config()
	if c.Timeout != time.Minute || c.Jobs != 5 || strings.Join(c.Command, " ") != "env x" {
		t.Errorf("the options did not win over the spec: %+v", c)
	}
	if names := hypNames(p.Hypotheses()); strings.Join(names, ",") != "baseline,a" {
		t.Errorf("--baseline: hypotheses %v", names)
	}
	p, err = planIn(t, `{"command":["true"],"hypotheses":[{"name":"a"}]}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// net and tmp stay "" when neither the flags nor the spec say: the
	// sandbox's own default (overlay: a private network and /tmp).
	if c := p.Config(); c.Timeout != DefaultTimeout || c.Jobs != runtime.NumCPU() || c.Net != "" || c.Tmp != "" {
		t.Errorf("defaults: %+v", c)
	}
	if p.Config().Sandbox.Mode() != "inplace" || !p.Recorded() {
		t.Errorf("sandbox %s, recorded %v", p.Config().Sandbox.Mode(), p.Recorded())
	}
	// A baseline already there is not added twice.
	p, err = planIn(t, `{"command":["true"],"hypotheses":[{"name":"none"},{"name":"a","edits":[{"path":"a.txt","content":"b"}]}]}`, Options{Baseline: true})
	if err != nil || len(p.Hypotheses()) != 2 {
		t.Errorf("baseline added over an existing one: %v %v", err, p)
	}
}

func TestPlanRefusals(t *testing.T) {
	const ok = `{"command":["true"],"hypotheses":[{"name":"a"}]}`
	for _, c := range []struct {
		name, spec string
		o          Options
		code       int
		want       string
	}{
		{"no command", `{"hypotheses":[{"name":"a"}]}`, Options{}, ExitUsage, "no command"},
		{"option net", ok, Options{Net: "lan"}, ExitUsage, `--net "lan"`},
		{"bad mode", ok, Options{Mode: "fast"}, ExitUsage, `--mode "fast"`},
		{"jobs", ok, Options{Jobs: -1}, ExitUsage, "-j -1"},
		{"command not found", `{"command":["shadow-no-such-command-x"],"hypotheses":[{"name":"a"}]}`, Options{}, ExitUsage, `command not found: "shadow-no-such-command-x"`},
		{"command not found on the spec's PATH", `{"command":["sh"],"env":{"PATH":"/nonexistent"},"hypotheses":[{"name":"a"}]}`, Options{}, ExitUsage, `"sh" is in no directory of PATH`},
		{"missing workspace", ok, Options{Dir: "/nonexistent/ws"}, ExitUsage, "/nonexistent/ws"},
		{"missing edit source", `{"command":["true"],"hypotheses":[{"name":"x","edits":[{"path":"a.txt","file":"nope.txt"}]}]}`, Options{}, ExitUsage, `"x"`},
		{"isolated in place", ok, Options{Net: NetIsolated}, ExitEnv, "--net isolated needs overlay mode"},
		{"private tmp in place", ok, Options{Tmp: TmpPrivate}, ExitEnv, "--tmp private needs overlay mode"},
		{"freeze in place", ok, Options{Freeze: true}, ExitEnv, "--freeze needs overlay mode"},
		{"keep in place", ok, Options{Keep: true}, ExitEnv, "--keep needs overlay mode"},
		{"bad upper", ok, Options{Upper: "tmpfs"}, ExitUsage, `--upper "tmpfs"`},
		{"ram upper in place", ok, Options{Upper: UpperRAM}, ExitUsage, "--upper ram: --mode inplace has no upper dirs"},
		{"ram upper in a copy", ok, Options{Upper: UpperRAM, Mode: ModeCopy}, ExitUsage, "--upper ram: --mode copy has no upper dirs"},
		{"ram upper on remote nodes", ok, Options{Upper: UpperRAM, Mode: ModeAuto, Remote: []string{"node1"}}, ExitUsage, "--upper ram: remote nodes"},
		{"upper size on disk", ok, Options{UpperSize: 1 << 30, Mode: ModeAuto}, ExitUsage, "--upper-size caps a RAM upper"},
		{"negative upper size", ok, Options{Upper: UpperRAM, UpperSize: -1, Mode: ModeAuto}, ExitUsage, "--upper-size -1"},
	} {
		_, err := planIn(t, c.spec, c.o)
		var re *Error
		if !errors.As(err, &re) || re.Code != c.code || !strings.Contains(re.Error(), c.want) {
			t.Errorf("%s: got %v (%#v), want exit %d naming %s", c.name, err, re, c.code, c.want)
		}
	}
}

// Planning writes nothing: a refused plan leaves no state dir behind.
func TestRefusedPlanWritesNothing(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ws := t.TempDir()
	_, err := NewPlan(context.Background(), mustSpec(t, `{"hypotheses":[{"name":"a"}]}`), ws, Options{Cwd: ws, Mode: ModeInplace})
	if err == nil {
		t.Fatal("no command accepted")
	}
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Errorf("a refused plan wrote %v", ents)
	}
	// --upper ram where it means nothing: refused with nothing written.
	for _, o := range []Options{{Mode: ModeCopy, Upper: UpperRAM}, {Mode: ModeAuto, Upper: UpperRAM, Remote: []string{"node1"}}} {
		o.Cwd = ws
		_, err := NewPlan(context.Background(), mustSpec(t, `{"command":["true"],"hypotheses":[{"name":"a"}]}`), ws, o)
		var re *Error
		if !errors.As(err, &re) || re.Code != ExitUsage {
			t.Errorf("%+v: %v, want exit 2", o, err)
		}
		if ents, _ := os.ReadDir(state); len(ents) != 0 {
			t.Errorf("a refused --upper ram plan wrote %v", ents)
		}
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Code: ExitEnv, Msg: "overlay mode is unavailable", Reason: "create namespaces failed: EPERM", Fix: "sysctl x=1"}
	if got := e.Error(); got != "overlay mode is unavailable: create namespaces failed: EPERM\nfix: sysctl x=1" {
		t.Errorf("Error() = %q", got)
	}
}

// A command an edit may still create, or one found, is not refused.
func TestPlanCommandThatMayExist(t *testing.T) {
	for _, spec := range []string{
		`{"command":["./run-tests.sh"],"hypotheses":[{"name":"a"}]}`,
		`{"command":["sh","-c","true"],"hypotheses":[{"name":"a"}]}`,
		`{"command":["made-by-an-edit"],"env":{"PATH":"bin:/usr/bin"},"hypotheses":[{"name":"a"}]}`,
	} {
		if _, err := planIn(t, spec, Options{}); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
}
