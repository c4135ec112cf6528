package scan

import "strings"

var jsOps = []string{">>>=", "===", "!==", "**=", "...", ">>>", "<<=", ">>=", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "**", "<<", ">>"}

// jsTokens splits JavaScript or TypeScript into tokens (ECMA-262's lexical
// grammar, as far as a scan needs it): comments dropped, string and
// template values kept (each ${} as "*", its expression tokenized between
// "(" and ")"), a "/" read as a regular expression where an operand is
// expected. A line end outside parentheses and brackets, and a ";", end a
// statement (tNL).
func jsTokens(src string) []tok {
	out := make([]tok, 0, len(src)/5)
	line := 1
	depth := 0
	n := len(src)
	i := 0
	nl := func() {
		if len(out) > 0 && out[len(out)-1].k != tNL {
			out = append(out, tok{k: tNL, line: line})
		}
	}
	operandEnds := func() bool {
		if len(out) == 0 {
			return false
		}
		p := out[len(out)-1]
		switch p.k {
		case tName:
			switch p.s {
			case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await":
				return false
			}
			return true
		case tNum, tStr:
			return true
		case tOp:
			return p.s == ")" || p.s == "]" || p.s == "}"
		}
		return false
	}
	for i < n {
		c := src[i]
		switch {
		case c == '\n':
			line++
			if depth == 0 {
				nl()
			}
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < n && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			e := strings.Index(src[i+2:], "*/")
			if e < 0 {
				e = n - i - 2
			}
			line += strings.Count(src[i:i+2+e], "\n")
			i += e + 4
		case isIdentStart(c):
			j := identEnd(src, i)
			out = append(out, tok{k: tName, s: src[i:j], line: line})
			i = j
		case numberStart(src, i):
			j := numberEnd(src, i)
			out = append(out, tok{k: tNum, s: src[i:j], line: line})
			i = j
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for j < n && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' && j+1 < n {
					if src[j+1] == '\n' {
						line++
					}
					b.WriteByte(src[j+1])
					j += 2
					continue
				}
				b.WriteByte(src[j])
				j++
			}
			out = append(out, tok{k: tStr, s: b.String(), line: line})
			i = j + 1
		case c == '`':
			start := line
			var b strings.Builder
			var inner []string
			j := i + 1
			for j < n && src[j] != '`' {
				switch {
				case src[j] == '\\' && j+1 < n:
					b.WriteByte(src[j+1])
					j += 2
				case strings.HasPrefix(src[j:], "${"):
					d, k := 0, j+1
					for ; k < n; k++ {
						if src[k] == '{' {
							d++
						} else if src[k] == '}' {
							d--
							if d == 0 {
								break
							}
						}
					}
					inner = append(inner, src[j+2:min(k, n)])
					line += strings.Count(src[j:min(k, n)], "\n")
					b.WriteByte('*')
					j = k + 1
				default:
					if src[j] == '\n' {
						line++
					}
					b.WriteByte(src[j])
					j++
				}
			}
			out = append(out, tok{k: tStr, s: b.String(), line: start})
			for _, e := range inner {
				out = append(out, tok{k: tOp, s: "(", line: start})
				for _, t := range jsTokens(e) {
					if t.k != tNL {
						t.line = start
						out = append(out, t)
					}
				}
				out = append(out, tok{k: tOp, s: ")", line: start})
			}
			i = j + 1
		case c == '/' && !operandEnds():
			// A regular expression literal: its source is a string the
			// rules may read (a test-file pattern).
			var b strings.Builder
			j := i + 1
			class := false
			for j < n && src[j] != '\n' && (src[j] != '/' || class) {
				if src[j] == '\\' && j+1 < n {
					b.WriteByte(src[j])
					b.WriteByte(src[j+1])
					j += 2
					continue
				}
				if src[j] == '[' {
					class = true
				} else if src[j] == ']' {
					class = false
				}
				b.WriteByte(src[j])
				j++
			}
			j = identEnd(src, j+1) // the flags
			out = append(out, tok{k: tStr, s: strings.ReplaceAll(b.String(), `\.`, "."), line: line})
			i = j
		default:
			op := src[i : i+1]
			if i+1 < n && strings.IndexByte("=&|?.>*<+-", src[i+1]) >= 0 {
				op = opAt(src, i, jsOps)
			}
			switch op {
			case "(", "[":
				depth++
			case ")", "]":
				if depth > 0 {
					depth--
				}
			case ";":
				nl()
				i++
				continue
			}
			out = append(out, tok{k: tOp, s: op, line: line})
			i += len(op)
		}
	}
	nl()
	return out
}
