package scan

import "strings"

// tokKind is what a token of the Python or JavaScript tokenizer is.
type tokKind int

const (
	tName tokKind = iota
	tStr          // a string literal; s is its value ("*" for each interpolation)
	tNum
	tOp
	tNL // the end of a logical line (Python) or a ';' / line end (JS)
)

// tok is one token: the tokenizers know strings, comments and brackets, so
// that what a rule reads is code and a string's value, whatever quoting
// or concatenation spelled it (the Python Language Reference, "Lexical
// analysis"; ECMA-262, "Lexical Grammar").
type tok struct {
	k    tokKind
	s    string
	line int // 1-based
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// identEnd is the index after the identifier starting at i.
func identEnd(src string, i int) int {
	for i < len(src) && isIdentChar(src[i]) {
		i++
	}
	return i
}

// numberStart: a number literal starts at i (a digit, or "." before one).
func numberStart(src string, i int) bool {
	c := src[i]
	return c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9'
}

// numberEnd is the index after the number literal starting at i: digits,
// letters (0x, 1e5, 10n, 1_000) and dots, as both languages spell them.
func numberEnd(src string, i int) int {
	for i < len(src) && (isIdentChar(src[i]) || src[i] == '.') {
		i++
	}
	return i
}

// opAt is the operator at i: the longest of ops (longest first) it
// starts with, or its one character.
func opAt(src string, i int, ops []string) string {
	for _, o := range ops {
		if strings.HasPrefix(src[i:], o) {
			return o
		}
	}
	return src[i : i+1]
}
