package scan

import "strings"

var pyOps = []string{"**", "==", "!=", "<=", ">=", "->", ":=", "+=", "-=", "|=", "&=", "//", "<<", ">>"}

// pyTokens splits Python source into tokens. The expressions inside an
// f-string's braces are tokenized too (between a "(" and a ")"), since
// they run: f"{sys._getframe(1).f_code.co_filename}" asks as much as the
// call outside a string.
func pyTokens(src string) []tok {
	out := make([]tok, 0, len(src)/5)
	line := 1
	depth := 0
	i := 0
	n := len(src)
	emitNL := func() {
		if len(out) > 0 && out[len(out)-1].k != tNL {
			out = append(out, tok{k: tNL, line: line})
		}
	}
	for i < n {
		c := src[i]
		switch {
		case c == '\n':
			if depth == 0 {
				emitNL()
			}
			line++
			i++
		case c == '\\' && i+1 < n && src[i+1] == '\n':
			line++
			i += 2
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == '#':
			for i < n && src[i] != '\n' {
				i++
			}
		case isIdentStart(c):
			j := identEnd(src, i)
			word := src[i:j]
			if j < n && (src[j] == '"' || src[j] == '\'') && len(word) <= 3 && strings.Trim(strings.ToLower(word), "rbuf") == "" {
				v, inner, end, lines := pyString(src, j, strings.ContainsAny(strings.ToLower(word), "r"), strings.ContainsAny(strings.ToLower(word), "f"))
				out = append(out, tok{k: tStr, s: v, line: line})
				for _, e := range inner {
					out = append(out, tok{k: tOp, s: "(", line: line})
					for _, t := range pyTokens(e) {
						if t.k != tNL {
							t.line = line
							out = append(out, t)
						}
					}
					out = append(out, tok{k: tOp, s: ")", line: line})
				}
				line += lines
				i = end
				continue
			}
			out = append(out, tok{k: tName, s: word, line: line})
			i = j
		case c == '"' || c == '\'':
			v, _, end, lines := pyString(src, i, false, false)
			out = append(out, tok{k: tStr, s: v, line: line})
			line += lines
			i = end
		case numberStart(src, i):
			j := numberEnd(src, i)
			out = append(out, tok{k: tNum, s: src[i:j], line: line})
			i = j
		default:
			op := opAt(src, i, pyOps)
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth > 0 {
					depth--
				}
			case ";":
				emitNL()
				i++
				continue
			}
			out = append(out, tok{k: tOp, s: op, line: line})
			i += len(op)
		}
	}
	emitNL()
	return out
}

// pyString reads the string literal whose quote is at src[i]: its value
// (escapes of the quote and backslash resolved, each f-string replacement
// field as "*"), the replacement fields' expressions, the index after it
// and how many newlines it spans.
func pyString(src string, i int, raw, f bool) (string, []string, int, int) {
	q := src[i : i+1]
	if strings.HasPrefix(src[i:], q+q+q) {
		q = q + q + q
	}
	j := i + len(q)
	var b strings.Builder
	var inner []string
	lines := 0
	for j < len(src) {
		if strings.HasPrefix(src[j:], q) {
			return b.String(), inner, j + len(q), lines
		}
		c := src[j]
		switch {
		case c == '\n':
			if len(q) == 1 {
				return b.String(), inner, j, lines
			}
			lines++
			b.WriteByte(c)
			j++
		case c == '\\' && j+1 < len(src):
			if src[j+1] == '\n' {
				lines++
			}
			if raw {
				b.WriteByte(c)
			}
			b.WriteByte(src[j+1])
			j += 2
		case f && c == '{' && j+1 < len(src) && src[j+1] == '{', f && c == '}' && j+1 < len(src) && src[j+1] == '}':
			b.WriteByte(c)
			j += 2
		case f && c == '{':
			d, k := 0, j
			for ; k < len(src); k++ {
				if src[k] == '{' {
					d++
				} else if src[k] == '}' {
					d--
					if d == 0 {
						break
					}
				} else if src[k] == '\n' {
					lines++
				}
			}
			e := src[j+1 : min(k, len(src))]
			if x := strings.IndexAny(e, "!:="); x > 0 && !strings.ContainsAny(e[:x], "([") {
				e = e[:x]
			}
			inner = append(inner, e)
			b.WriteByte('*')
			j = k + 1
		default:
			b.WriteByte(c)
			j++
		}
	}
	return b.String(), inner, j, lines
}
