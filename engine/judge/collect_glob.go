package judge

import (
	"regexp"
	"strings"
)

// runnerGlob is a test-file glob a runner's configuration names, anchored
// at the directory it is relative to (vitest's root, jest's rootDir, a
// pytest testpath): workspace-relative, "" for the root.
type runnerGlob struct {
	base string
	glob string
	re   *regexp.Regexp
	// regex: re is jest's testRegex, searched in the path ("/" first, as
	// in jest's absolute paths), not a glob.
	regex bool
}

// newRunnerRegex compiles jest's testRegex (JavaScript's syntax, which Go's
// accepts for what such a pattern uses); nil when it does not compile.
func newRunnerRegex(expr string) *runnerGlob {
	re, err := regexp.Compile(expr)
	if err != nil || expr == "" {
		return nil
	}
	return &runnerGlob{glob: "regex " + expr, re: re, regex: true}
}

// newRunnerGlob compiles a runner's glob in the syntax vitest (tinyglobby,
// picomatch) and jest (micromatch) share: "**" across directories, "*",
// "?" and "[...]" within one, "{a,b}" alternatives and the extglobs
// "?(...)", "*(...)", "+(...)", "@(...)", "!(...)" (the last approximated
// by "anything in one component": a superset never makes a test file
// code). A glob without "/" names a base name at any depth. nil when it
// does not compile.
func newRunnerGlob(base, glob string) *runnerGlob {
	g := strings.TrimPrefix(glob, "./")
	if g == "" || strings.HasPrefix(g, "!") {
		return nil // a negation excludes; it names no test file
	}
	if !strings.Contains(g, "/") {
		g = "**/" + g
	}
	re, err := regexp.Compile("^" + globRegexp(g) + "$")
	if err != nil {
		return nil
	}
	return &runnerGlob{base: strings.Trim(base, "/"), glob: glob, re: re}
}

// match reports whether the workspace-relative path p is one the glob names.
func (g *runnerGlob) match(p string) bool {
	if g.regex {
		return g.re.MatchString("/" + p)
	}
	if g.base != "" && g.base != "." {
		rest, ok := strings.CutPrefix(p, g.base+"/")
		if !ok {
			return false
		}
		p = rest
	}
	return g.re.MatchString(p)
}

// globRegexp translates a glob into a regular expression (no anchors).
func globRegexp(g string) string {
	var b strings.Builder
	depth := 0 // inside "{...}"
	var ext []byte
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			// "**/" is any number of directories (none included); a
			// trailing "**" is anything below.
			i++
			if i+1 < len(g) && g[i+1] == '/' {
				i++
				b.WriteString(`(?:[^/]*/)*`)
			} else {
				b.WriteString(`.*`)
			}
		case (c == '?' || c == '*' || c == '+' || c == '@' || c == '!') && i+1 < len(g) && g[i+1] == '(':
			ext = append(ext, c)
			i++
			if c == '!' {
				b.WriteString(`(?:[^/]*|(?:`)
			} else {
				b.WriteString(`(?:`)
			}
		case c == ')' && len(ext) > 0:
			k := ext[len(ext)-1]
			ext = ext[:len(ext)-1]
			switch k {
			case '?':
				b.WriteString(`)?`)
			case '*':
				b.WriteString(`)*`)
			case '+':
				b.WriteString(`)+`)
			case '!':
				b.WriteString(`))`)
			default:
				b.WriteString(`)`)
			}
		case c == '|' && len(ext) > 0:
			b.WriteByte('|')
		case c == '*':
			b.WriteString(`[^/]*`)
		case c == '?':
			b.WriteString(`[^/]`)
		case c == '{':
			depth++
			b.WriteString(`(?:`)
		case c == '}' && depth > 0:
			depth--
			b.WriteString(`)`)
		case c == ',' && depth > 0:
			b.WriteByte('|')
		case c == '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(string(g[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}
