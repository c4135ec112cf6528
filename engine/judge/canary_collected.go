package judge

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// The canary where the runner said which files are tests (collect.go): a
// project whose tests are check_*.py or checks/**/*.check.ts has no file
// the default names find, so the canary was planted nowhere (or where the
// runner does not look) and judged nothing. canaryFor plants it where the
// runner collects: the Python canary beside the shallowest test file the
// runner names, its file named by the runner's own pattern (python_files,
// unittest's -p); the JavaScript one at the end of every file the
// runner's include globs name.

// pyCanaryBody is the Python canary's file: a unittest.TestCase, which
// pytest collects as well as unittest.
func pyCanaryBody(word, tok string) string {
	cls := "Test" + camel(word) + strings.ToUpper(tok[:1]) + tok[1:]
	return fmt.Sprintf("import unittest\n\n\nclass %s(unittest.TestCase):\n    def test_%s_%s(self):\n        self.assertEqual(len(%q), %d)\n", cls, word, tok, tok, len(tok)+1)
}

// jsCanaryBlock is the test appended to a jest or vitest test file.
func jsCanaryBlock(runner, word, tok string) string {
	title := strings.ReplaceAll(word, "_", " ") + " " + tok
	if runner == "vitest" {
		// Imports are hoisted; aliases keep the file's own names.
		t, e := "test_"+tok, "expect_"+tok
		return fmt.Sprintf("\nimport { test as %s, expect as %s } from 'vitest'\n%s('%s', () => {\n  %s('%s'.length).toBe(%d)\n})\n", t, e, t, title, e, tok, len(tok)+1)
	}
	return fmt.Sprintf("\ntest('%s', () => {\n  expect('%s'.length).toBe(%d)\n})\n", title, tok, len(tok)+1)
}

// canaryFor is the run's canary (planCanary), planted where c says the
// runner collects.
func canaryFor(workspace, subdir string, command []string, c *testCollection) *canaryPlan {
	p := planCanary(workspace, subdir, command)
	if c == nil {
		return p
	}
	dir := filepath.Join(workspace, filepath.FromSlash(subdir))
	switch c.runner {
	case "pytest", "unittest":
		if p != nil && len(p.files) == 1 && c.collectsNew(p.files[0].Path) {
			return p // the default name is one the runner collects
		}
		if canaryRunner(dir, command) != c.runner || failsFast(dir, command) {
			return p
		}
		name := ""
		for _, g := range c.globs {
			if b := g.glob; !strings.Contains(b, "/") && strings.Count(b, "*") == 1 && strings.HasSuffix(b, ".py") && !strings.ContainsAny(b, "?[{") {
				name = b
				break
			}
		}
		files := collectedFiles(workspace, subdir, c, func(p string) bool { return strings.HasSuffix(p, ".py") })
		if name == "" || len(files) == 0 {
			return p
		}
		if p == nil {
			tok := randomToken()
			p = &canaryPlan{runner: c.runner, token: tok}
		}
		word := canaryWords[int(p.token[0])%len(canaryWords)]
		d := path.Dir(files[0])
		if d == "." {
			d = ""
		}
		f := File{Path: path.Join(d, strings.Replace(name, "*", word+"_"+p.token, 1)), Content: []byte(pyCanaryBody(word, p.token)), Mode: 0o644}
		if !c.collectsNew(f.Path) {
			return p
		}
		p.files = []File{f}
		return p
	case "vitest", "jest":
		if canaryRunner(dir, command) != c.runner || failsFast(dir, command) {
			return p
		}
		files := collectedFiles(workspace, subdir, c, func(p string) bool { return jsTestExt[path.Ext(p)] })
		if len(files) == 0 {
			return p
		}
		if p == nil {
			p = &canaryPlan{runner: c.runner, token: randomToken()}
		}
		word := canaryWords[int(p.token[0])%len(canaryWords)]
		block := jsCanaryBlock(c.runner, word, p.token)
		p.appends = nil
		for _, f := range files {
			abs := filepath.Join(workspace, filepath.FromSlash(f))
			b, err := os.ReadFile(abs)
			st, serr := os.Stat(abs)
			if err != nil || serr != nil {
				continue
			}
			p.appends = append(p.appends, canaryAppend{path: f, orig: b, mode: st.Mode().Perm(), block: block})
		}
		if len(p.appends) == 0 && len(p.files) == 0 {
			return nil
		}
		return p
	}
	return p
}

// jsTestExt are the extensions of test files jest and vitest run.
var jsTestExt = map[string]bool{".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true, ".cjs": true, ".mts": true, ".cts": true}

// collectedFiles are the checkout's files under the command's directory
// the runner collects (c), that keep accepts, shallowest first, at most
// maxCanaryDirs (the walk bounded as the canary's is).
func collectedFiles(workspace, subdir string, c *testCollection, keep func(string) bool) []string {
	var out []string
	for f := range c.files {
		if keep(f) && (subdir == "" || strings.HasPrefix(f, subdir+"/")) {
			out = append(out, f)
		}
	}
	if len(out) == 0 && len(c.globs) > 0 {
		root := filepath.Join(workspace, filepath.FromSlash(subdir))
		seen := 0
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if seen++; err != nil || seen > maxCanaryWalk || len(out) >= maxCanaryDirs {
				return filepath.SkipAll
			}
			if e.IsDir() {
				if p != root && (canarySkipDirs[e.Name()] || strings.HasPrefix(e.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			rel, rerr := filepath.Rel(workspace, p)
			if rerr == nil && e.Type().IsRegular() {
				if r := filepath.ToSlash(rel); keep(r) && c.matches(r) {
					out = append(out, r)
				}
			}
			return nil
		})
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := strings.Count(out[i], "/"), strings.Count(out[j], "/")
		if di != dj {
			return di < dj
		}
		return out[i] < out[j]
	})
	return out
}
