package scan

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
)

// foldStr folds the string expression at i, as Python or JavaScript would
// compute it: adjacent literals, "+" between foldable parts, names bound to
// a literal, joins of literals, and the decoders a cheat hides a name
// behind (base64, hex, rot13, character codes, a reversal: the base64,
// binascii and codecs docs; ECMA-262's String.fromCharCode, the WHATWG
// atob, node's Buffer.from). It returns the value, whether it is constant,
// and the index after it.
func foldStr(t []tok, i int, consts map[string]string) (string, bool, int) {
	v, ok, end, _ := foldExpr(t, i, consts)
	return v, ok, end
}

// foldExpr is foldStr that also names the decoder the value went
// through ("" when it is spelled out: concatenation is not hiding).
func foldExpr(t []tok, i int, consts map[string]string) (string, bool, int, string) {
	var b strings.Builder
	ok, dec := false, ""
	for i < len(t) {
		v, good, end, d := foldAtom(t, i, consts)
		if !good {
			break
		}
		b.WriteString(v)
		ok, i = true, end
		if d != "" {
			dec = d
		}
		if i+1 < len(t) && t[i].k == tOp && t[i].s == "+" {
			if _, g, _, _ := foldAtom(t, i+1, consts); g {
				i++
				continue
			}
		}
		if i < len(t) && t[i].k == tStr {
			continue // Python's adjacent literals
		}
		break
	}
	return b.String(), ok, i, dec
}

// foldAtom folds one operand of a "+" and what is applied to it.
func foldAtom(t []tok, i int, consts map[string]string) (string, bool, int, string) {
	if i >= len(t) {
		return "", false, i, ""
	}
	v, ok, end, dec := foldPrimary(t, i, consts)
	if !ok {
		return "", false, i, ""
	}
	// Methods and slices applied to the value.
	for end < len(t) {
		switch {
		case isOp(t, end, "[") && isOp(t, end+1, ":") && isOp(t, end+2, ":") && isOp(t, end+3, "-") && end+4 < len(t) && t[end+4].s == "1" && isOp(t, end+5, "]"):
			v, end, dec = reverse(v), end+6, "reversal" // s[::-1]
			continue
		case !isOp(t, end, ".") || end+2 >= len(t) || t[end+1].k != tName || !isOp(t, end+2, "("):
			return v, true, end, dec
		}
		m := t[end+1].s
		args := end + 3
		after := closeAt(t, end+2)
		switch m {
		case "decode", "encode", "toString", "valueOf":
		case "lower", "toLowerCase", "casefold":
			v = strings.ToLower(v)
		case "upper", "toUpperCase":
			v = strings.ToUpper(v)
		case "strip", "trim":
			v = strings.TrimSpace(v)
		case "replace", "replaceAll":
			from, ok1, e1, _ := foldExpr(t, args, consts)
			if !ok1 || !isOp(t, e1, ",") {
				return v, true, end, dec
			}
			to, ok2, _, _ := foldExpr(t, e1+1, consts)
			if !ok2 {
				return v, true, end, dec
			}
			v = strings.ReplaceAll(v, from, to)
		case "split":
			// s.split("").reverse().join("")
			sep, ok1, _, _ := foldExpr(t, args, consts)
			r := after
			if !ok1 || sep != "" || !isOp(t, r, ".") || r+3 >= len(t) || t[r+1].s != "reverse" || !isOp(t, r+2, "(") || !isOp(t, r+3, ")") ||
				!isOp(t, r+4, ".") || r+6 >= len(t) || t[r+5].s != "join" || !isOp(t, r+6, "(") {
				return v, true, end, dec
			}
			j, ok2, je, _ := foldExpr(t, r+7, consts)
			if !ok2 || j != "" || !isOp(t, je, ")") {
				return v, true, end, dec
			}
			v, end, dec = reverse(v), je+1, "reversal"
			continue
		default:
			return v, true, end, dec
		}
		end = after
	}
	return v, true, end, dec
}

func isOp(t []tok, i int, s string) bool { return i >= 0 && i < len(t) && t[i].k == tOp && t[i].s == s }

func reverse(s string) string {
	r := []rune(s)
	for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
		r[a], r[b] = r[b], r[a]
	}
	return string(r)
}

// foldPrimary folds a literal, a constant's name, a join or a decoder's
// call at i.
func foldPrimary(t []tok, i int, consts map[string]string) (string, bool, int, string) {
	switch {
	case t[i].k == tStr && isOp(t, i+1, ".") && i+3 < len(t) && t[i+2].s == "join" && isOp(t, i+3, "("):
		// "sep".join([...]), "".join(map(chr, [...])), "".join(chr(c) for c in [...]), "".join(reversed(s))
		if v, end, dec, ok := joinArg(t, i+4, t[i].s, consts); ok && isOp(t, end, ")") {
			return v, true, end + 1, dec
		}
		return t[i].s, true, i + 1, ""
	case t[i].k == tStr:
		return t[i].s, true, i + 1, ""
	case isOp(t, i, "["):
		// ["VI", "TEST"].join(""), [..."s"].reverse().join("")
		if isOp(t, i+1, "...") {
			v, ok, e, _ := foldExpr(t, i+2, consts)
			if ok && isOp(t, e, "]") && isOp(t, e+1, ".") && e+4 < len(t) && t[e+2].s == "reverse" && isOp(t, e+3, "(") && isOp(t, e+4, ")") {
				if sep, end, ok := jsJoin(t, e+5, consts); ok && sep == "" {
					return reverse(v), true, end, "reversal"
				}
			}
			return "", false, i, ""
		}
		parts, e, ok := foldList(t, i, consts)
		if !ok {
			return "", false, i, ""
		}
		if sep, end, ok := jsJoin(t, e, consts); ok {
			return strings.Join(parts, sep), true, end, ""
		}
		return "", false, i, ""
	case t[i].k != tName:
		return "", false, i, ""
	}
	if consts != nil && consts["\x00"+t[i].s] != "" && !isOp(t, i+1, ".") && !isOp(t, i+1, "(") {
		return strings.TrimPrefix(consts["\x00"+t[i].s], "\x01"), true, i + 1, ""
	}
	// A call: NAME(.NAME)*(args).
	var path []string
	j := i
	for j < len(t) && t[j].k == tName {
		n := t[j].s
		if len(path) == 0 && consts != nil {
			if r, ok := consts[n]; ok && !strings.HasPrefix(r, "\x01") {
				n = r // an import alias: b64 for base64
			}
		}
		path = append(path, strings.Split(n, ".")...)
		if !isOp(t, j+1, ".") {
			break
		}
		j += 2
	}
	if !isOp(t, j+1, "(") {
		return "", false, i, ""
	}
	open := j + 1
	fn := strings.Join(path, ".")
	last := path[len(path)-1]
	if !foldCalls[last] && !foldCalls[fn] {
		return "", false, i, ""
	}
	closed := closeAt(t, open)
	arg := func() (string, int, bool) {
		v, ok, e, _ := foldExpr(t, open+1, consts)
		return v, e, ok && (isOp(t, e, ")") || isOp(t, e, ","))
	}
	switch {
	case fn == "chr" || fn == "String.fromCharCode" || fn == "String.fromCodePoint":
		var b strings.Builder
		for k := open + 1; k < closed-1; k++ {
			if isOp(t, k, ",") {
				continue
			}
			n, ok := number(t, k)
			if !ok || fn == "chr" && k != open+1 {
				return "", false, i, ""
			}
			b.WriteRune(rune(n))
		}
		return b.String(), b.Len() > 0, closed, "character codes"
	case (fn == "bytes" || fn == "bytearray" || fn == "Buffer.from" || fn == "Uint8Array.from") && isOp(t, open+1, "[") && !isStrList(t, open+1):
		codes, e, ok := numList(t, open+1)
		if !ok || !isOp(t, e, ")") {
			return "", false, i, ""
		}
		return string(codes), true, closed, "character codes"
	case last == "b64decode" || last == "standard_b64decode" || last == "urlsafe_b64decode" || last == "decodebytes" || last == "a2b_base64" || fn == "atob":
		v, _, ok := arg()
		if !ok {
			return "", false, i, ""
		}
		d, ok := unbase64(v)
		return d, ok, closed, "base64"
	case last == "b16decode" || last == "fromhex" || last == "unhexlify" || last == "a2b_hex":
		v, _, ok := arg()
		if !ok {
			return "", false, i, ""
		}
		d, err := hex.DecodeString(strings.ReplaceAll(v, " ", ""))
		return string(d), err == nil, closed, "hex"
	case last == "b32decode":
		v, _, ok := arg()
		if !ok {
			return "", false, i, ""
		}
		d, err := base32.StdEncoding.DecodeString(v)
		return string(d), err == nil, closed, "base32"
	case fn == "codecs.decode" || fn == "codecs.encode":
		v, e, ok := arg()
		if !ok || !isOp(t, e, ",") {
			return "", false, i, ""
		}
		enc, ok2, _, _ := foldExpr(t, e+1, consts)
		if !ok2 {
			return "", false, i, ""
		}
		switch strings.ToLower(strings.ReplaceAll(enc, "-", "_")) {
		case "rot13", "rot_13":
			return rot13(v), true, closed, "rot13"
		case "hex", "hex_codec":
			if fn == "codecs.decode" {
				d, err := hex.DecodeString(v)
				return string(d), err == nil, closed, "hex"
			}
		case "base64", "base64_codec":
			if fn == "codecs.decode" {
				d, ok := unbase64(v)
				return d, ok, closed, "base64"
			}
		}
		return "", false, i, ""
	case fn == "Buffer.from":
		v, e, ok := arg()
		if !ok {
			return "", false, i, ""
		}
		enc := "utf8"
		if isOp(t, e, ",") {
			enc, _, _, _ = foldExpr(t, e+1, consts)
		}
		switch strings.ToLower(enc) {
		case "base64", "base64url":
			d, ok := unbase64(v)
			return d, ok, closed, "base64"
		case "hex":
			d, err := hex.DecodeString(v)
			return string(d), err == nil, closed, "hex"
		case "utf8", "utf-8", "ascii", "latin1", "binary":
			return v, true, closed, ""
		}
		return "", false, i, ""
	case fn == "decodeURIComponent" || fn == "decodeURI" || fn == "unescape" || fn == "urllib.parse.unquote" || last == "unquote" && len(path) > 1:
		v, _, ok := arg()
		if !ok {
			return "", false, i, ""
		}
		d, err := url.PathUnescape(v)
		if err != nil {
			return "", false, i, ""
		}
		dec := ""
		if d != v {
			dec = "percent-encoding"
		}
		return d, true, closed, dec
	case fn == "str" || fn == "String" || fn == "bytes" && !isOp(t, open+1, "["):
		v, e, ok := arg()
		if !ok {
			return "", false, i, ""
		}
		_, _, _, d := foldExpr(t, open+1, consts)
		_ = e
		return v, true, closed, d
	}
	return "", false, i, ""
}

// foldCalls: the calls foldPrimary folds, by name or last part.
var foldCalls = map[string]bool{"chr": true, "String.fromCharCode": true, "String.fromCodePoint": true, "bytes": true, "bytearray": true,
	"Buffer.from": true, "Uint8Array.from": true, "b64decode": true, "standard_b64decode": true, "urlsafe_b64decode": true,
	"decodebytes": true, "a2b_base64": true, "atob": true, "b16decode": true, "fromhex": true, "unhexlify": true, "a2b_hex": true,
	"b32decode": true, "codecs.decode": true, "codecs.encode": true, "decodeURIComponent": true, "decodeURI": true, "unescape": true,
	"unquote": true, "str": true, "String": true}

// joinArg folds what "sep".join( is handed, from i.
func joinArg(t []tok, i int, sep string, consts map[string]string) (string, int, string, bool) {
	switch {
	case isOp(t, i, "[") || isOp(t, i, "("):
		// [chr(c) for c in [...]] and (chr(c) for c in ...) are below.
		if parts, e, ok := foldList(t, i, consts); ok {
			return strings.Join(parts, sep), e, "", true
		}
		if isOp(t, i, "[") {
			if v, e, d, ok := joinArg(t, i+1, sep, consts); ok && isOp(t, e, "]") {
				return v, e + 1, d, true
			}
		}
	case i+1 < len(t) && t[i].s == "map" && isOp(t, i+1, "(") && i+3 < len(t) && t[i+2].s == "chr" && isOp(t, i+3, ","):
		codes, e, ok := numList(t, i+4)
		if ok && isOp(t, e, ")") {
			return joinRunes(codes, sep), e + 1, "character codes", true
		}
	case i+1 < len(t) && t[i].s == "reversed" && isOp(t, i+1, "("):
		v, ok, e, _ := foldExpr(t, i+2, consts)
		if ok && isOp(t, e, ")") {
			return strings.Join(strings.Split(reverse(v), ""), sep), e + 1, "reversal", true
		}
	case i+4 < len(t) && t[i].s == "chr" && isOp(t, i+1, "(") && t[i+2].k == tName && isOp(t, i+3, ")") && t[i+4].s == "for":
		// chr(c) for c in [105, ...]
		if i+7 < len(t) && t[i+5].s == t[i+2].s && t[i+6].s == "in" {
			codes, e, ok := numList(t, i+7)
			if ok {
				return joinRunes(codes, sep), e, "character codes", true
			}
		}
	}
	return "", i, "", false
}

func joinRunes(codes []byte, sep string) string {
	parts := make([]string, len(codes))
	for k, c := range codes {
		parts[k] = string(rune(c))
	}
	return strings.Join(parts, sep)
}

// jsJoin reads `.join("sep")` at i: the separator and the index after it.
func jsJoin(t []tok, i int, consts map[string]string) (string, int, bool) {
	if !isOp(t, i, ".") || i+2 >= len(t) || t[i+1].s != "join" || !isOp(t, i+2, "(") {
		return "", i, false
	}
	if isOp(t, i+3, ")") {
		return ",", i + 4, true
	}
	sep, ok, e, _ := foldExpr(t, i+3, consts)
	if !ok || !isOp(t, e, ")") {
		return "", i, false
	}
	return sep, e + 1, true
}

// foldList reads a list or tuple of foldable strings opening at i: their
// values, the index after its closing bracket, and whether it was one.
func foldList(t []tok, i int, consts map[string]string) ([]string, int, bool) {
	closer := map[string]string{"[": "]", "(": ")"}[t[i].s]
	var parts []string
	for j := i + 1; j < len(t); {
		switch {
		case isOp(t, j, ","):
			j++
		case isOp(t, j, closer):
			return parts, j + 1, len(parts) > 0
		default:
			v, ok, e, _ := foldExpr(t, j, consts)
			if !ok {
				return nil, j, false
			}
			parts = append(parts, v)
			j = e
		}
	}
	return nil, len(t), false
}

func isStrList(t []tok, i int) bool { return i+1 < len(t) && t[i+1].k == tStr }

// numList reads a list or tuple of small integers opening at i.
func numList(t []tok, i int) ([]byte, int, bool) {
	if !isOp(t, i, "[") && !isOp(t, i, "(") {
		return nil, i, false
	}
	closer := map[string]string{"[": "]", "(": ")"}[t[i].s]
	var out []byte
	for j := i + 1; j < len(t); j++ {
		switch {
		case isOp(t, j, ","):
		case isOp(t, j, closer):
			return out, j + 1, len(out) > 0
		default:
			n, ok := number(t, j)
			if !ok || n < 0 || n > 255 {
				return nil, j, false
			}
			out = append(out, byte(n))
		}
	}
	return nil, len(t), false
}

func number(t []tok, i int) (int64, bool) {
	if i >= len(t) || t[i].k != tNum {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(t[i].s, "_", ""), 0, 32)
	return n, err == nil
}

func unbase64(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if d, err := e.DecodeString(s); err == nil {
			return string(d), true
		}
	}
	return "", false
}

func rot13(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}
