//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/records"
)

// SpecFile writes a spec under its own name (concurrent runs need several).
func (e *Env) SpecFile(name string, v any) string {
	e.T.Helper()
	b, _ := json.Marshal(v)
	p := filepath.Join(e.Dir, name+".json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		e.T.Fatal(err)
	}
	return p
}

type SnapLogDoc struct {
	Schema string            `json:"schema"`
	Runs   []records.Summary `json:"runs"`
}

func (e *Env) Log() SnapLogDoc {
	e.T.Helper()
	out, stderr, code := e.Shadow("log", "--json", "-C", e.WS)
	if code != 0 {
		e.T.Fatalf("log: exit %d %s", code, stderr)
	}
	var d SnapLogDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Schema != "shadow.log/v1" {
		e.T.Fatalf("log --json: %v\n%s", err, out)
	}
	return d
}

func Edit(path, content string) map[string]any {
	return map[string]any{"path": path, "content": content}
}

// RunEditing runs shadow with --events and calls edit when the first
// hypothesis starts; it returns the final report and the exit code.
func (e *Env) RunEditing(editFn func(), args ...string) (*engine.Report, int) {
	e.T.Helper()
	c := e.Cmd(append([]string{"--headless", "--events"}, args...)...)
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		e.T.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var last engine.Event
	edited := false
	for sc.Scan() {
		var ev engine.Event
		json.Unmarshal(sc.Bytes(), &ev)
		if ev.Kind == engine.KindHypStarted && !edited {
			// The engine takes the start state of the sources beside the
			// starting hypotheses: edit once that scan is surely done.
			time.Sleep(time.Second)
			editFn()
			if err := os.WriteFile(e.EditedMarker(), nil, 0o644); err != nil {
				e.T.Fatal(err)
			}
			edited = true
		}
		last = ev
	}
	code := 0
	if ee, ok := c.Wait().(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if last.Report == nil {
		e.T.Fatalf("no run_finished event (exit %d)", code)
	}
	return last.Report, code
}

// EditedMarker is the file runEditing creates once the edit is made,
// outside the workspace; waitEdited is a shell snippet that waits for it
// (at most 10 s), so a command reads the sources after the edit without a
// fixed sleep.
func (e *Env) EditedMarker() string { return filepath.Join(e.Dir, "edited") }

func (e *Env) WaitEdited() string {
	return "i=0; while [ ! -e " + e.EditedMarker() + " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; "
}
