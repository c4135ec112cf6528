package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shadow-dev/shadow/internal/records"
	"github.com/shadow-dev/shadow/internal/run"
)

// exec runs a command line with buffers for streams (stdin: in) and
// returns stdout, stderr and the error it ended with.
func execCLI(in string, args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := Execute(args, Streams{In: strings.NewReader(in), Out: &out, Err: &errb, IsTerminal: func(io.Writer) bool { return false }}, "test")
	return out.String(), errb.String(), err
}

// code is the exit code err stands for: main's, ExitCode.
func code(err error) int { return ExitCode(err, io.Discard) }

func TestHelpForEveryCommand(t *testing.T) {
	root := NewRoot(Streams{}, "test")
	for _, c := range root.Commands() {
		name := c.Name()
		for _, args := range [][]string{{name, "-h"}, {"help", name}} {
			out, errb, err := execCLI("", args...)
			if err != nil || !strings.Contains(out, "Usage:") || !strings.Contains(out, "shadow "+name) {
				t.Errorf("%v: err %v, stderr %q, stdout:\n%s", args, err, errb, out)
			}
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		out, _, err := execCLI("", args...)
		if err != nil || !strings.HasPrefix(out, "shadow: test candidate fixes") || !strings.Contains(out, "exit codes:") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	// Every flag of a run, and every command, is in the root help text
	// (written by hand, grouped for a reader: this keeps it whole).
	root.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(usageText) {
			t.Errorf("shadow -h does not mention --%s", f.Name)
		}
		if f.Shorthand != "" && !strings.Contains(usageText, "-"+f.Shorthand+", --"+f.Name) {
			t.Errorf("shadow -h does not mention -%s", f.Shorthand)
		}
	})
	for _, c := range root.Commands() {
		if !c.Hidden && !strings.Contains(usageText, "shadow "+c.Name()) {
			t.Errorf("shadow -h does not list the command %s", c.Name())
		}
	}
}

func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, _, err := execCLI("", "completion", sh)
		if err != nil || !strings.Contains(out, "shadow") || len(out) < 500 {
			t.Errorf("completion %s: %v, %d bytes", sh, err, len(out))
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if out, _, err := execCLI("", args...); err != nil || !strings.HasPrefix(out, "shadow test (") {
			t.Errorf("%v: %q %v", args, out, err)
		}
	}
}

// Refusals of the command line: exit 2 with a line that says what is
// wrong, before anything is read or run.
func TestArgumentRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"spec.json", "pytest", "-q"}, "put the command after --"},
		{[]string{"spec.json", "pytest"}, "one SPEC expected"},
		{[]string{"--headless", "--", "pytest", "spec.json"}, `no SPEC before the --: "spec.json" after it`},
		{[]string{"--", "spec.json", "--", "pytest"}, `no SPEC before the --: "spec.json"`},
		{[]string{"--json", "--events", "spec.json", "--", "true"}, "--json and --events are exclusive"},
		{[]string{"--mode", "fast", "spec.json", "--", "true"}, `--mode "fast": want auto, overlay, copy or inplace`},
		{[]string{"--net", "lan", "spec.json", "--", "true"}, `--net "lan": want private, isolated or host`},
		{[]string{"--tmp", "ram", "spec.json", "--", "true"}, `--tmp "ram"`},
		{[]string{"--upper", "tmpfs", "spec.json", "--", "true"}, `--upper "tmpfs": want disk or ram`},
		{[]string{"--upper-size", "lots", "spec.json", "--", "true"}, `--upper-size "lots"`},
		{[]string{"--copy-skip", "/abs", "spec.json", "--", "true"}, `--copy-skip "/abs"`},
		{[]string{"--timeout", "soon", "spec.json", "--", "true"}, `--timeout "soon": want a positive duration`},
		{[]string{"--timeout", "-5s", "spec.json", "--", "true"}, `--timeout "-5s"`},
		{[]string{"tui", "a.json", "b.json", "--", "true"}, "one SPEC expected"},
		{[]string{"log", "extra"}, "log takes no arguments"},
		{[]string{"log", "--bogus"}, "log: unknown flag: --bogus"},
		{[]string{"show"}, "show: want one RUN or RUN/HYP"},
		{[]string{"apply", "@last"}, "apply: want one RUN/HYP"},
		{[]string{"gc", "x"}, "usage: shadow gc"},
		{[]string{"probe", "x"}, "usage: shadow probe"},
		{[]string{"mcp", "x"}, "usage: shadow mcp"},
		{[]string{"demo", "x"}, "usage: shadow demo"},
		{[]string{"/nonexistent/spec.json", "--", "true"}, "/nonexistent/spec.json"},
		{[]string{"-", "--", "true"}, "JSON"},
	} {
		_, _, err := execCLI("{", c.args...)
		if code(err) != run.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d, %v; want exit 2 naming %q", c.args, code(err), err, c.want)
		}
	}
	// No SPEC but flags or a command: one line, not the whole usage.
	for _, args := range [][]string{{"--headless", "--", "pytest"}, {"--", "pytest"}, {"--json"}} {
		out, errb, err := execCLI("", args...)
		// --json gets the refusal as JSON on stdout (jsonerr.go).
		if code(err) != run.ExitUsage || (out != "") != (args[0] == "--json") || errb != "" || !strings.HasPrefix(err.Error(), "no SPEC: ") {
			t.Errorf("%v: exit %d, %v, stderr %q", args, code(err), err, errb)
		}
	}
	// Mistakes in the command line point at the command's help; a spec's
	// do not (they are not about the command line).
	_, _, err := execCLI("", "log", "--bogus")
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Hint() != "see `shadow log -h`" {
		t.Errorf("log --bogus: %#v", err)
	}
	_, _, err = execCLI("{", "-", "--", "true")
	if errors.As(err, &ae) || code(err) != run.ExitUsage {
		t.Errorf("a spec error is an argument error: %#v", err)
	}
	// Bare `shadow`: the usage on stderr, exit 2.
	out, errb, err := execCLI("")
	if code(err) != run.ExitUsage || out != "" || !strings.Contains(errb, "usage:") {
		t.Errorf("bare shadow: exit %d, stdout %q, stderr %q", code(err), out, errb)
	}
}

// A whole in-place run through the command tree, then log, show, gc and
// probe read back with buffers.
func TestRunThenLogShowGC(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := `{"hypotheses":[{"name":"fix","edits":[{"path":"v.txt","content":"good\n"}]},{"name":"none"}]}`
	out, errb, err := execCLI(spec, "--headless", "--json", "--mode", "inplace", "-C", ws, "-", "--", "grep", "-q", "good", "v.txt")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb)
	}
	var rep struct {
		Run    string
		Winner *string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Winner == nil || *rep.Winner != "fix" {
		t.Fatalf("report: %v %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "bad\n" {
		t.Fatalf("the checkout changed: %q", b)
	}

	out, _, err = execCLI("", "log", "-C", ws)
	if err != nil || !strings.Contains(out, rep.Run) || !strings.Contains(out, "1 passed, 1 failed") || !strings.Contains(out, "grep -q good v.txt") {
		t.Errorf("log: %v\n%s", err, out)
	}
	out, _, err = execCLI("", "log", "-C", ws, "--json", "-n", "1")
	var doc struct {
		Schema string
		Runs   []records.Summary
	}
	if json.Unmarshal([]byte(out), &doc); err != nil || doc.Schema != "shadow.log/v1" || len(doc.Runs) != 1 || doc.Runs[0].State != "finished" {
		t.Errorf("log --json: %v\n%s", err, out)
	}
	out, _, err = execCLI("", "show", "-C", ws, "@last")
	if err != nil || !strings.HasPrefix(out, "run "+rep.Run+"  done") || !strings.Contains(out, "details: shadow show "+rep.Run+"/HYP") {
		t.Errorf("show RUN: %v\n%s", err, out)
	}
	out, _, err = execCLI("", "show", "-C", ws, rep.Run[:8]+"/fix")
	if err != nil || !strings.Contains(out, "hypothesis fix: passed") || !strings.Contains(out, "+good") || !strings.Contains(out, "<- winner") {
		t.Errorf("show RUN/HYP: %v\n%s", err, out)
	}
	if _, _, err := execCLI("", "show", "-C", ws, "@last/nope"); code(err) != run.ExitUsage {
		t.Errorf("show of a hypothesis that is not there: %v", err)
	}
	// show --patch: a patch git apply takes, against the checkout as it was.
	patch, _, err := execCLI("", "show", "--patch", "-C", ws, "@last/fix")
	if err != nil || !strings.Contains(patch, "+good") {
		t.Errorf("show --patch: %v\n%s", err, patch)
	}
	if git, lerr := exec.LookPath("git"); lerr == nil {
		c := exec.Command(git, "apply", "--check", "-")
		c.Dir, c.Stdin = ws, strings.NewReader(patch)
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("git apply --check refuses show --patch: %v %s\n%s", err, out, patch)
		}
	}
	if _, _, err := execCLI("", "show", "--patch", "-C", ws, "@last"); code(err) != run.ExitUsage {
		t.Errorf("show --patch RUN: %v", err)
	}
	out, _, err = execCLI("", "apply", "--dry-run", "-C", ws, "@last/fix")
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); err != nil || string(b) != "bad\n" || !strings.Contains(out, "would write v.txt") {
		t.Errorf("apply --dry-run: %v %q\n%s", err, b, out)
	}
	if err := os.WriteFile(filepath.Join(ws, "v.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errb, err := execCLI("", "apply", "--dry-run", "-C", ws, "@last/fix"); code(err) != run.ExitNone || !strings.Contains(errb, "v.txt") {
		t.Errorf("apply --dry-run over a changed target: exit %d %s", code(err), errb)
	}
	if err := os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = execCLI("", "apply", "-C", ws, "@last/fix")
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); err != nil || string(b) != "good\n" || !strings.Contains(out, "applied "+rep.Run+"/fix") {
		t.Errorf("apply: %v %q\n%s", err, b, out)
	}
	out, _, err = execCLI("", "gc")
	if err != nil || !strings.Contains(out, "shadow gc: 1 workspace(s) in") {
		t.Errorf("gc: %v\n%s", err, out)
	}
	out, _, err = execCLI("", "probe", "--json")
	var v struct{ Mode, Reason string }
	if json.Unmarshal([]byte(out), &v); err != nil || (v.Mode != "overlay" && v.Mode != "inplace") || v.Reason == "" {
		t.Errorf("probe --json: %v\n%s", err, out)
	}
	out, _, err = execCLI("", "probe")
	if err != nil || !strings.HasPrefix(out, "mode: "+v.Mode+"\nwhy:  ") {
		t.Errorf("probe: %v\n%s", err, out)
	}
}

// TestFullScreenCommandsNeedATerminal: `shadow tui` and `shadow watch`
// without a terminal exit 3 before anything runs, naming --headless; the
// command given never ran and no run was recorded.
func TestFullScreenCommandsNeedATerminal(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	spec := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(spec, []byte(`{"hypotheses":[{"name":"baseline"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	_, errb, err := execCLI("", "tui", "-C", ws, spec, "--", "sh", "-c", "touch "+ran)
	if code(err) != 3 || !strings.Contains(err.Error()+errb, "--headless") {
		t.Errorf("shadow tui without a terminal: exit %d, %v %s; want 3 naming --headless", code(err), err, errb)
	}
	if _, serr := os.Stat(ran); serr == nil {
		t.Errorf("the command ran")
	}
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Errorf("something was recorded in the state dir: %v", ents)
	}
	_, _, err = execCLI("", "watch", "-C", ws)
	if code(err) != 3 || !strings.Contains(err.Error(), "needs a terminal") {
		t.Errorf("shadow watch without a terminal: exit %d, %v", code(err), err)
	}
}

// With --json or --events, progress lines go to stderr only when it is a
// terminal: a person waits there; an agent's captured stderr stays clean.
func TestProgressWithJSONOnlyOnATerminal(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	spec := `{"hypotheses":[{"name":"a"}]}`
	for _, tty := range []bool{false, true} {
		var out, errb bytes.Buffer
		s := Streams{In: strings.NewReader(spec), Out: &out, Err: &errb, IsTerminal: func(w io.Writer) bool { return tty && w == io.Writer(&errb) }}
		err := Execute([]string{"--json", "--mode", "inplace", "--no-record", "-C", ws, "-", "--", "true"}, s, "test")
		if err != nil {
			t.Fatalf("tty=%v: %v\n%s", tty, err, errb.String())
		}
		if got := strings.Contains(errb.String(), "[1/1] a passed"); got != tty {
			t.Errorf("stderr a terminal: %v; progress shown: %v\n%s", tty, got, errb.String())
		}
		if !strings.HasPrefix(out.String(), "{") {
			t.Errorf("stdout is not the JSON document: %q", out.String())
		}
	}
}

// Every shadow flag the README (and the pages moved out of it: internals,
// the judge, the figures) names exists in the binary: in a code span that
// starts with it (`--keep`), or on a line that runs shadow.
func TestREADMEFlagsExist(t *testing.T) {
	for _, doc := range []string{"README.md", "docs/internals.md", "docs/judge.md", "docs/figures.md", "CONTRIBUTING.md", "docs/install.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", doc))
		if err != nil {
			t.Skipf("no %s beside the module", doc)
		}
		docFlagsExist(t, doc, b)
	}
}

func docFlagsExist(t *testing.T, doc string, b []byte) {
	known := map[string]bool{}
	Walk(NewRoot(Streams{}, "test"), func(_ string, c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { known["--"+f.Name] = true })
	})
	// Flags of other programs the README mentions (bubblewrap's, Slurm's
	// sbatch's).
	other := map[string]bool{"--disable-userns": true, "--ro-bind": true, "--wait": true}
	span := regexp.MustCompile("`(--[a-z][a-z-]*)")
	flag := regexp.MustCompile(`(?:^|\s)(--[a-z][a-z-]*)`)
	for i, line := range strings.Split(string(b), "\n") {
		var names []string
		for _, m := range span.FindAllStringSubmatch(line, -1) {
			names = append(names, m[1])
		}
		if strings.Contains(line, "shadow ") && !strings.Contains(line, "claude ") {
			for _, m := range flag.FindAllStringSubmatch(line, -1) {
				names = append(names, m[1])
			}
		}
		for _, n := range names {
			if !known[n] && !other[n] {
				t.Errorf("%s:%d names %s, which no shadow command has", doc, i+1, n)
			}
		}
	}
}
