//go:build linux

package shard

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/mcpserver"
	"github.com/shadow-dev/shadow/test/e2e"
)

// shadow_merge merges shard reports given as files or inline, as `shadow
// merge` does; its refusals are tool errors naming why; with apply (and
// the spec the shards ran) it writes the winner and records the merge,
// which shadow_log then lists. A refused apply (a target changed since the
// shards' commit) is a tool error and writes nothing.
func TestShardMergeMCP(t *testing.T) {
	e, spec, files := mergeApplyEnv(t)
	m := e2e.NewMCPEnv(t, e, e.WS)
	orig := e.Read("calc.go")

	res := m.MustCall("shadow_merge", map[string]any{"reports": files})
	if res.IsError {
		t.Fatalf("shadow_merge: %s", e2e.Text(res))
	}
	rep := m.Report(e2e.Structured[mcpserver.RunDoc](t, res))
	if rep.Winner == nil || *rep.Winner != "all" || fmt.Sprint(rep.MergedFrom) != "[0 1 2]" || !strings.Contains(e2e.Text(res), "winner: all") {
		t.Errorf("merged: winner %v merged_from %v\n%s", e2e.Deref(rep.Winner), rep.MergedFrom, e2e.Text(res))
	}
	if e.Read("calc.go") != orig {
		t.Errorf("a merge without apply wrote the checkout")
	}
	var inline []any
	for _, f := range files[1:] {
		b, _ := os.ReadFile(f)
		var doc map[string]any
		json.Unmarshal(b, &doc)
		inline = append(inline, doc)
	}
	res = m.MustCall("shadow_merge", map[string]any{"reports": files[:1], "inline_reports": inline})
	if res.IsError || e2e.Structured[mcpserver.RunDoc](t, res).Winner == nil {
		t.Errorf("files and inline reports: %s", e2e.Text(res))
	}

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"reports": files[:2]}, "shard 2 of 3 missing"},
		{map[string]any{}, "give the shards' reports"},
		{map[string]any{"inline_reports": []any{map[string]any{"schema": "x/v1"}}}, "not a shadow report"},
		{map[string]any{"reports": files, "apply": true}, "spec: required"},
		{map[string]any{"reports": files, "force": true}, "go with apply"},
		{map[string]any{"reports": files, "aply": true}, "aply: unknown field"},
	} {
		res := m.MustCall("shadow_merge", c.args)
		if !res.IsError || !strings.Contains(e2e.Text(res), c.want) {
			t.Errorf("%v: error %v, %q; want a tool error naming %q", c.args, res.IsError, e2e.Text(res), c.want)
		}
	}

	dirty := orig + "// mine\n"
	e.Write("calc.go", dirty, 0o644)
	res = m.MustCall("shadow_merge", map[string]any{"reports": files, "apply": true, "spec": spec})
	if !res.IsError || !strings.Contains(e2e.Text(res), "changed in the checkout") || e.Read("calc.go") != dirty {
		t.Errorf("apply over a changed target: error %v, %s", res.IsError, e2e.Text(res))
	}
	e.Write("calc.go", orig, 0o644)
	res = m.MustCall("shadow_merge", map[string]any{"reports": files, "apply": true, "spec": spec})
	if res.IsError {
		t.Fatalf("apply: %s", e2e.Text(res))
	}
	applied := e2e.Structured[mcpserver.RunDoc](t, res)
	if e.Read("calc.go") != calc(true, true, true, "") || fmt.Sprint(applied.Applied) != "[calc.go]" || applied.RunID == "" {
		t.Errorf("apply: applied %v run %q, calc.go:\n%s", applied.Applied, applied.RunID, e.Read("calc.go"))
	}
	if lg := m.MustCall("shadow_log", map[string]any{}); !strings.Contains(e2e.Text(lg), applied.RunID) {
		t.Errorf("shadow_log lists no %s:\n%s", applied.RunID, e2e.Text(lg))
	}
}
