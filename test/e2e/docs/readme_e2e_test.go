//go:build linux

package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// The README's commands run as written, in order, through the binary, on
// a checkout like the one the quick start describes: the demo's Go module
// (Add subtracts) in git, with branches fix-a (the fix) and fix-b (a wrong
// one), another worktree, and fix.diff. Each ```sh block starts from the
// checkout as committed (a block's apply does not reach the next); the
// spec example's JSON is written as spec.json, as the README says. A line
// exiting 2 or 3 (refused, or the environment cannot) fails the test: the
// README would be teaching something that does not work.
//
// Not run, only checked by bash -n: `go test ./...` (this suite), `go
// install .` (builds this binary again) and other programs' commands
// (claude). `go run . ARGS` runs as `shadow ARGS`.
func TestREADMECommandsRunAsWritten(t *testing.T) {
	e := e2e.NewEnv(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs go")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	ws := e.WS
	for name, content := range map[string]string{
		"calc.go":      readFixture(t, "calc.go"),
		"calc_test.go": readFixture(t, "calc_test.go"),
		"go.mod":       readFixture(t, "go.mod"),
	} {
		e.Write(name, content, 0o644)
	}
	fixed := strings.Replace(readFixture(t, "calc.go"), "func Add(a, b int) int {\n\treturn a - b", "func Add(a, b int) int {\n\treturn a + b", 1)
	wrong := strings.Replace(readFixture(t, "calc.go"), "func Add(a, b int) int {\n\treturn a - b", "func Add(a, b int) int {\n\treturn a * b", 1)
	if fixed == readFixture(t, "calc.go") {
		t.Fatal("the demo fixture's Add changed: update this test")
	}
	other := filepath.Join(e.Dir, "tries", "fix-c")
	git := func(dir string, args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(ws, "init", "-q", "-b", "main")
	git(ws, "add", "-A")
	git(ws, "commit", "-qm", "calc")
	for branch, content := range map[string]string{"fix-a": fixed, "fix-b": wrong} {
		git(ws, "checkout", "-qb", branch)
		e.Write("calc.go", content, 0o644)
		git(ws, "commit", "-qam", branch)
		git(ws, "checkout", "-q", "main")
	}
	git(ws, "worktree", "add", "-q", "-b", "fix-c", other)
	if err := os.WriteFile(filepath.Join(other, "calc.go"), []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	// fix.diff: the fix as git diff prints it.
	e.Write("calc.go", fixed, 0o644)
	diff, err := exec.Command("git", "-C", ws, "diff").Output()
	if err != nil || len(diff) == 0 {
		t.Fatalf("git diff: %v", err)
	}
	git(ws, "checkout", "-q", "--", ".")
	e.Write("fix.diff", string(diff), 0o644)

	bin := filepath.Join(e.Dir, "bin")
	os.MkdirAll(bin, 0o755)
	exe, _ := os.Executable()
	os.WriteFile(filepath.Join(bin, "shadow"), []byte("#!/bin/sh\nSHADOW_E2E_MAIN=1 exec "+exe+" \"$@\"\n"), 0o755)

	run := func(line string) (string, int) {
		t.Helper()
		c := exec.Command("/bin/bash", "--noprofile", "--norc", "-o", "pipefail", "-c", line)
		c.Dir = ws
		c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "XDG_STATE_HOME="+e.State, "CI=true")
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), code
	}

	blocks := readmeBlocks(string(readme))
	ran, checked := 0, 0
	specNext := false
	for _, b := range blocks {
		switch {
		case b.lang == "json" && specNext:
			// "and as `spec.json`:" in "A spec, by example".
			e.Write("spec.json", b.body, 0o644)
			specNext = false
			continue
		case b.lang != "sh":
			continue
		}
		if strings.Contains(b.before, "## A spec, by example") && !fileExists(filepath.Join(ws, "spec.json")) {
			specNext = true
		}
		git(ws, "checkout", "-q", "--", ".")
		for _, line := range strings.Split(strings.TrimSpace(b.body), "\n") {
			cmd := stripComment(line)
			if cmd == "" {
				continue
			}
			words := strings.Fields(cmd)
			switch {
			case cmd == "go test ./..." || cmd == "go install .":
				checked++
				continue
			case strings.HasPrefix(cmd, "go run . "):
				cmd = "shadow " + strings.TrimPrefix(cmd, "go run . ")
			case words[0] == "claude" || words[0] == "codex":
				if out, code := run("bash -n -c " + shellQuote(cmd)); code != 0 {
					t.Errorf("README: %q is not valid shell: %s", line, out)
				}
				checked++
				continue
			}
			out, code := run(cmd)
			ran++
			if code != 0 && code != 1 {
				t.Errorf("README: %q exited %d (0 or 1 expected: it ran)\n%s", line, code, out)
				continue
			}
			if strings.HasPrefix(cmd, "shadow apply ") || strings.HasPrefix(cmd, "shadow init") || strings.HasPrefix(cmd, "shadow log") || strings.HasPrefix(cmd, "shadow show") {
				if code != 0 {
					t.Errorf("README: %q exited %d\n%s", line, code, out)
				}
			}
			if strings.HasPrefix(cmd, "shadow apply ") {
				if b, _ := os.ReadFile(filepath.Join(ws, "calc.go")); string(b) != fixed {
					t.Errorf("README: %q left calc.go unfixed:\n%s\n%s", line, b, out)
				}
			}
			if strings.Contains(cmd, "--patch fix.diff") && !strings.Contains(cmd, "--json") && !strings.Contains(cmd, "--events") && !regexp.MustCompile(`(?m)^winner: fix$`).MatchString(out) {
				t.Errorf("README: %q named another winner than fix:\n%s", line, out)
			}
		}
	}
	if !fileExists(filepath.Join(ws, "spec.json")) {
		t.Error(`the README's "A spec, by example" was not found or not written as spec.json`)
	}
	if ran < 8 {
		t.Errorf("ran %d of the README's commands: has its layout changed? (blocks %d)", ran, len(blocks))
	}
	t.Logf("ran %d README commands, checked %d more", ran, checked)
}

type mdBlock struct{ lang, body, before string }

// readmeBlocks are the fenced blocks of a Markdown document, each with the
// text before it since the previous block.
func readmeBlocks(doc string) []mdBlock {
	var out []mdBlock
	rest := doc
	for {
		i := strings.Index(rest, "\n```")
		if i < 0 {
			return out
		}
		before := rest[:i]
		rest = rest[i+4:]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return out
		}
		lang := strings.TrimSpace(rest[:nl])
		rest = rest[nl+1:]
		end := strings.Index(rest, "\n```")
		if end < 0 {
			return out
		}
		out = append(out, mdBlock{lang: lang, body: rest[:end+1], before: before})
		rest = rest[end+4:]
	}
}

// stripComment drops a trailing "  # ..." comment (two spaces or more
// before the #, as the README writes them) and surrounding space.
func stripComment(line string) string {
	if i := regexp.MustCompile(`\s{2,}#`).FindStringIndex(line); i != nil {
		line = line[:i[0]]
	}
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return ""
	}
	return strings.TrimSpace(line)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("demo", "fixture", "workspace", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
