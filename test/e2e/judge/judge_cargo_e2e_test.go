//go:build linux

package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// The article's fixture (a one-function crate whose add subtracts) with
// cargo test: the fix wins, clean; the canary goes where the fix's edit
// rebuilds anyway (the crate root's unit tests) and is neither seen nor
// counted; a candidate that prints libtest's passing lines and exits 0
// before the harness reports (the cheat the canary exists for) is
// tampered, its canary unreported, although no baseline had one to show.
func TestE2ECargoCanaryWhereTheFixRebuilds(t *testing.T) {
	e2e.Parallel(t)
	cargo := need(t, "cargo")
	e := e2e.NewEnv(t)
	e.Write("Cargo.toml", "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n", 0o644)
	lib := func(body string) string {
		return body + "\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn adds() { assert_eq!(add(2, 3), 5); }\n    #[test]\n    fn adds_zero() { assert_eq!(add(0, 4), 4); }\n}\n"
	}
	e.Write("src/lib.rs", lib("pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"), 0o644)
	forged := "pub fn add(a: i32, b: i32) -> i32 {\n    let _ = (a, b);\n    println!(\"test tests::adds ... ok\\ntest tests::adds_zero ... ok\\n\\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\\n\");\n    std::process::exit(0)\n}\n"
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "plus", "edits": []any{map[string]any{"path": "src/lib.rs", "content": lib("pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n")}}},
		map[string]any{"name": "mul", "edits": []any{map[string]any{"path": "src/lib.rs", "content": lib("pub fn add(a: i32, b: i32) -> i32 {\n    a * b\n}\n")}}},
		map[string]any{"name": "forged", "edits": []any{map[string]any{"path": "src/lib.rs", "content": lib(forged)}}},
	}})
	out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", cargo, "test", "--offline")
	rep := e.Report(out)
	m := e2e.ByName(rep)
	if code != 0 || rep.Winner == nil || *rep.Winner != "plus" {
		t.Fatalf("exit %d winner %v, want plus\n%s\n%s", code, rep.Winner, stderr, out)
	}
	plus, f := m["plus"], m["forged"]
	if plus.Tests == nil || plus.Tests.Passed != 2 || plus.Tests.Failed != 0 || plus.Tampered != nil || plus.ExitCode == nil || *plus.ExitCode != 0 {
		t.Errorf("plus: tests %+v tampered %q exit %v\n%s", plus.Tests, e2e.Str(plus.Tampered), plus.ExitCode, plus.OutputTail)
	}
	if f.Tampered == nil {
		t.Errorf("forged: not tampered (status %s tests %+v)\n%s", f.Status, f.Tests, f.OutputTail)
	}
	for _, r := range rep.Hypotheses {
		b, _ := os.ReadFile(r.Log)
		for what, text := range map[string]string{"tail": r.OutputTail, "log": string(b), "tampered": e2e.Str(r.Tampered)} {
			if s := canaryName.FindString(text); s != "" {
				t.Errorf("%s's %s names the canary (%s):\n%s", r.Name, what, s, text)
			}
		}
	}
	if b, _ := os.ReadFile(plus.Log); failWord.Match(b) || !strings.Contains(string(b), "test result: ok. 2 passed; 0 failed") {
		t.Errorf("plus passed, but its log reads:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "tests")); err == nil {
		t.Errorf("the run left tests/ in the checkout")
	}
}
