package judge

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// cargo test's canary, where a candidate's code reaches and where it is
// built anyway. An integration test in tests/ is a crate of its own, which
// every hypothesis compiled and linked again (its writes to target/ go
// with it): 3 hypotheses of the article's one-function crate cost 2.33x
// the CPU of the in-tree edit-run-revert loop. A hypothesis that changes
// only the crate's own Rust sources recompiles the crate root's unit tests
// anyway (their crate changed), so the canary goes at the end of
// src/lib.rs there, under #[cfg(test)]: almost free. That needs a crate
// whose unit tests are the only test binary: cargo stops at the first
// failing binary (without --no-fail-fast), and the canary's must not stop
// integration tests or a binary's own tests. Otherwise, and for any change
// outside src/ (build.rs, Cargo.toml, a script), the integration test is
// planted as before. The no-edit baseline gets none: it runs no
// candidate's code.

// cargoLibCanary is the block appended to the crate root, or nil where the
// crate has other test binaries (or no src/lib.rs).
func cargoLibCanary(dir, manifest string, rel func(string) string, fn, tok string) *canaryAppend {
	lib := filepath.Join(dir, "src", "lib.rs")
	b, err := os.ReadFile(lib)
	st, serr := os.Stat(lib)
	if err != nil || serr != nil {
		return nil
	}
	for _, other := range []string{"tests", filepath.Join("src", "bin")} {
		if ents, err := os.ReadDir(filepath.Join(dir, other)); err == nil && len(ents) > 0 {
			return nil
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "src", "main.rs")); err == nil {
		return nil
	}
	if cargoTargetTable.MatchString(manifest) {
		return nil // [lib] path =, [[test]], [[bin]]: targets declared by hand
	}
	block := "\n#[cfg(test)]\n" + cargoCanaryFn(fn, tok)
	return &canaryAppend{path: rel(lib), orig: b, mode: st.Mode().Perm(), block: block}
}

// cargoCanaryFn is the canary test: it fails by returning an error, not by
// panicking, so the harness prints no backtrace (with RUST_BACKTRACE set,
// resolving one cost each hypothesis about 0.1 s of CPU); it fails all
// the same, and a cheat that forges the harness's report or exits early
// leaves it unreported as before.
func cargoCanaryFn(fn, tok string) string {
	return fmt.Sprintf("#[test]\nfn %s() -> Result<(), String> {\n    let n = %q.len();\n    if n == %d { Ok(()) } else { Err(format!(\"got {}, want %d\", n)) }\n}\n", fn, tok, len(tok)+1, len(tok)+1)
}

var cargoTargetTable = regexp.MustCompile(`(?m)^\s*\[(\[(test|bin|bench|example)\]|lib)\]`)

// cargoPlainFlags are the options of cargo test (before "--") and of the
// test harness (after it) that run every test of the crate.
var cargoPlainFlags = map[string]bool{"-q": true, "--quiet": true, "-v": true, "--verbose": true, "-vv": true, "--release": true, "--offline": true,
	"--locked": true, "--frozen": true, "--all-features": true, "--no-default-features": true, "--no-fail-fast": true,
	"--nocapture": true, "--show-output": true}

// cargoPlainCommand reports whether the command is cargo test with no test
// filter or target selection: every test it has runs, so a canary planted
// must be reported, whatever any other run showed.
func cargoPlainCommand(command []string) bool {
	line := strings.Join(command, " ")
	if len(command) >= 3 && (path.Base(command[0]) == "sh" || path.Base(command[0]) == "bash") && command[1] == "-c" {
		line = command[2]
	}
	f := strings.Fields(line)
	i := 0
	for i < len(f) && !(path.Base(f[i]) == "cargo") {
		i++
	}
	if i+1 >= len(f) {
		return false
	}
	i++
	if strings.HasPrefix(f[i], "+") { // a toolchain
		i++
	}
	if i >= len(f) || f[i] != "test" {
		return false
	}
	for _, a := range f[i+1:] {
		if a == "--" {
			continue
		}
		if !cargoPlainFlags[a] && !strings.HasPrefix(a, "--test-threads") && !strings.HasPrefix(a, "--color") && !strings.HasPrefix(a, "-j") {
			return false
		}
	}
	return true
}

// plantCargo plants cargo's canary for one job: none without changes, at
// the end of the crate root when every change is a Rust source of the
// crate's src/ (and the crate root can take it), else the integration
// test. It returns the canary test's name when the command runs every
// test (the run must then report it), and false: not every form.
func (p *canaryPlan) plantCargo(h Hypothesis) (Hypothesis, []string, bool) {
	var changed []string
	for _, f := range h.Files {
		changed = append(changed, f.Path)
	}
	changed = append(changed, h.Deletes...)
	if len(changed) == 0 {
		return h, nil, false
	}
	src := path.Join(p.cargoDir, "src") + "/"
	if p.cargoDir == "" || p.cargoDir == "." {
		src = "src/"
	}
	inSrc := p.cargoLib != nil
	for _, c := range changed {
		if !strings.HasPrefix(c, src) || path.Ext(c) != ".rs" {
			inSrc = false
		}
	}
	for _, d := range h.Deletes {
		if p.cargoLib != nil && d == p.cargoLib.path {
			inSrc = false
		}
	}
	out := h
	out.Files = append([]File{}, h.Files...)
	var planted []string
	if p.cargoPlain {
		planted = []string{p.cargoFn}
	}
	if inSrc {
		a := p.cargoLib
		if i := indexFile(out.Files, a.path); i >= 0 {
			f := out.Files[i]
			f.Content = append(append([]byte{}, f.Content...), a.block...)
			out.Files[i] = f
		} else {
			out.Files = append(out.Files, File{Path: a.path, Content: append(append([]byte{}, a.orig...), a.block...), Mode: a.mode})
		}
	} else {
		for _, f := range p.files {
			if indexFile(out.Files, f.Path) < 0 {
				out.Files = append(out.Files, f)
			}
		}
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	return out, planted, false
}

func indexFile(files []File, p string) int {
	for i, f := range files {
		if f.Path == p {
			return i
		}
	}
	return -1
}

// plantedIn reports whether a job holds any of the canary (a file of its
// own, or a block appended to one of the job's files).
func (p *canaryPlan) plantedIn(job Hypothesis) bool {
	for _, f := range job.Files {
		if strings.Contains(f.Path, p.token) || bytes.Contains(f.Content, []byte(p.token)) {
			return true
		}
	}
	return false
}
