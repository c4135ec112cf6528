package judge

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// vitest's and jest's test files (collect.go), from their configuration,
// read and not run: vitest's `test.include` (vitest's docs, "include":
// globs relative to the root, default `**/*.{test,spec}.?(c|m)[jt]s?(x)`)
// and jest's `testMatch`, `testRegex` (jest's docs, "Configuring Jest":
// default testMatch `**/__tests__/**/*.?([mc])[jt]s?(x)` and
// `**/?(*.)+(spec|test).?([mc])[jt]s?(x)`), from package.json's "jest" or a
// jest.config.* file, and the command's --config and --testMatch/
// --testRegex. A config file is a program; what is read of it is the
// string literals of those keys, which is what nearly every project
// writes. A key computed at run time is not seen, and the runner's
// default (and naming) stands.

var (
	vitestDefault = []string{"**/*.{test,spec}.?(c|m)[jt]s?(x)"}
	jestDefault   = []string{"**/__tests__/**/*.?([mc])[jt]s?(x)", "**/?(*.)+(spec|test).?([mc])[jt]s?(x)"}
	vitestConfigs = []string{"vitest.config.ts", "vitest.config.mts", "vitest.config.cts", "vitest.config.js", "vitest.config.mjs", "vitest.config.cjs",
		"vite.config.ts", "vite.config.mts", "vite.config.cts", "vite.config.js", "vite.config.mjs", "vite.config.cjs"}
	jestConfigs = []string{"jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.json"}
)

func collectVitest(workspace, subdir string, inv *invocation) *testCollection {
	c := &testCollection{runner: "vitest", via: "config", files: map[string]bool{}}
	file := optValue(inv.args, "--config", "-c")
	if file == "" {
		for _, n := range vitestConfigs {
			if _, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(subdir), n)); err == nil {
				file = n
				break
			}
		}
	}
	var include []string
	base := subdir
	if file != "" {
		rel, ok := relTo(subdir, file)
		b, err := os.ReadFile(filepath.Join(workspace, filepath.FromSlash(rel)))
		if ok && err == nil {
			include = jsKeyStrings(string(b), "include", func(stack []string) bool {
				return len(stack) > 0 && stack[len(stack)-1] == "test" && !containsKey(stack, "coverage")
			})
			if d := path.Dir(rel); d != "." {
				base = d
			} else {
				base = ""
			}
		}
	}
	if r := optValue(inv.args, "--root", "-r"); r != "" {
		if d, ok := relTo(subdir, r); ok {
			base = d
		}
	}
	if len(include) == 0 {
		include, c.via = vitestDefault, "rule"
	}
	for _, g := range include {
		if rg := newRunnerGlob(base, g); rg != nil {
			c.globs = append(c.globs, rg)
		}
	}
	return c
}

func collectJest(workspace, subdir string, inv *invocation) *testCollection {
	c := &testCollection{runner: "jest", via: "config", files: map[string]bool{}}
	var match, regex []string
	base := subdir
	readFile := func(rel string) bool {
		b, err := os.ReadFile(filepath.Join(workspace, filepath.FromSlash(rel)))
		if err != nil {
			return false
		}
		text := string(b)
		if path.Base(rel) == "package.json" {
			var pj struct {
				Jest json.RawMessage `json:"jest"`
			}
			if json.Unmarshal(b, &pj) != nil || len(pj.Jest) == 0 {
				return false
			}
			text = string(pj.Jest)
		}
		top := func(stack []string) bool { return len(stack) <= 1 }
		match = jsKeyStrings(text, "testMatch", top)
		regex = jsKeyStrings(text, "testRegex", top)
		if d := path.Dir(rel); d != "." {
			base = d
		} else {
			base = ""
		}
		if rd := jsKeyStrings(text, "rootDir", top); len(rd) == 1 {
			if d, ok := relTo(base, rd[0]); ok {
				base = d
			}
		}
		return true
	}
	if f := optValue(inv.args, "--config", "-c"); f != "" && !strings.HasPrefix(strings.TrimSpace(f), "{") {
		if rel, ok := relTo(subdir, f); ok {
			readFile(rel)
		}
	} else {
		found := false
		for _, n := range jestConfigs {
			if readFile(path.Join(subdir, n)) {
				found = true
				break
			}
		}
		if !found {
			readFile(path.Join(subdir, "package.json"))
		}
	}
	if v := optValue(inv.args, "--testMatch"); v != "" {
		match = []string{v}
	}
	if v := optValue(inv.args, "--testRegex"); v != "" {
		regex = []string{v}
	}
	if len(match) == 0 && len(regex) == 0 {
		match, c.via = jestDefault, "rule"
	}
	for _, g := range match {
		g = strings.TrimPrefix(g, "<rootDir>/")
		if rg := newRunnerGlob(base, g); rg != nil {
			c.globs = append(c.globs, rg)
		}
	}
	for _, r := range regex {
		if rg := newRunnerRegex(r); rg != nil {
			c.globs = append(c.globs, rg)
		}
	}
	return c
}

// optValue is the value of the first of names in args ("--x v" or
// "--x=v"), or "".
func optValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
		}
	}
	return ""
}

func containsKey(stack []string, k string) bool {
	for _, s := range stack {
		if s == k {
			return true
		}
	}
	return false
}

// jsKeyStrings reads a JavaScript or JSON object literal's text and
// returns the string literals of every property named key whose enclosing
// objects' keys (outermost first) where accepts: a string value, or the
// strings of an array value. Comments are skipped; a template literal
// with a substitution, or any other expression, yields nothing.
func jsKeyStrings(text, key string, accepts func(stack []string) bool) []string {
	toks := jsTokens(text)
	var out []string
	var stack []string
	pending := ""
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == 'p' && (t.s == "{" || t.s == "["):
			stack = append(stack, pending)
			pending = ""
		case t.kind == 'p' && (t.s == "}" || t.s == "]"):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			pending = ""
		case (t.kind == 'i' || t.kind == 's') && i+1 < len(toks) && toks[i+1].kind == 'p' && toks[i+1].s == ":":
			pending = t.s
			i++
			if t.s != key || !accepts(stack) || i+1 >= len(toks) {
				continue
			}
			v := toks[i+1]
			switch {
			case v.kind == 's':
				out = append(out, v.s)
			case v.kind == 'p' && v.s == "[":
				for j := i + 2; j < len(toks); j++ {
					if toks[j].kind == 's' {
						out = append(out, toks[j].s)
					} else if toks[j].kind != 'p' || toks[j].s != "," {
						break
					}
				}
			}
		case t.kind == 'p' && t.s == ",":
			pending = ""
		}
	}
	return out
}

// jsToken is one token: 'i' an identifier, 's' a string literal (its
// value), 'p' punctuation, 'o' anything else.
type jsToken struct {
	kind byte
	s    string
}

func jsTokens(text string) []jsToken {
	var out []jsToken
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 3
		case c == '"' || c == '\'' || c == '`':
			var b strings.Builder
			j := i + 1
			plain := true
			for ; j < len(text) && text[j] != c; j++ {
				if text[j] == '\\' && j+1 < len(text) {
					j++
					switch text[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(text[j])
					}
					continue
				}
				if c == '`' && text[j] == '$' && j+1 < len(text) && text[j+1] == '{' {
					plain = false
				}
				b.WriteByte(text[j])
			}
			if plain {
				out = append(out, jsToken{'s', b.String()})
			} else {
				out = append(out, jsToken{'o', ""})
			}
			i = j
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(text) && (text[j] == '_' || text[j] == '$' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9') {
				j++
			}
			out = append(out, jsToken{'i', text[i:j]})
			i = j - 1
		case strings.IndexByte("{}[]:,()", c) >= 0:
			out = append(out, jsToken{'p', string(c)})
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			out = append(out, jsToken{'o', string(c)})
		}
	}
	return out
}
