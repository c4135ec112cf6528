// Package gitrisk says what in a tree of files git would obey: a
// directory git takes for a repository, and configuration entries that
// make git run a program or read its settings from somewhere else.
// A candidate fix writes files into the user's checkout; git runs in
// that checkout (a shell prompt runs `git status` on every `cd`), so a
// file git reads as its own config is code the user runs (docs/report.md,
// "What git would obey").
package gitrisk

import (
	"bytes"
	"strings"
)

// Entry is one variable of a git config file: section and key lowercased
// (git's names are case-insensitive), subsection as written (it is
// case-sensitive), value unquoted.
type Entry struct {
	Section, Sub, Key, Value string
	Line                     int // 1-based
}

// Name is the dotted name git uses (core.fsmonitor, diff.x.textconv).
func (e Entry) Name() string {
	if e.Sub != "" {
		return e.Section + "." + e.Sub + "." + e.Key
	}
	return e.Section + "." + e.Key
}

// ParseConfig reads data as git-config(1)'s syntax ("CONFIGURATION
// FILE"), tolerantly: lines git would reject are skipped rather than
// failing the file, so a file crafted to be half valid is still read as
// far as git might read it. A file without a section header yields
// nothing (git attributes no variable outside a section). Linear in the
// input.
func ParseConfig(data []byte) []Entry {
	if !hasHeader(data) {
		return nil // no section header: the fast path for ordinary files
	}
	var out []Entry
	section, sub, inSection := "", "", false
	lines := bytes.Split(data, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		n := i + 1
		raw := bytes.TrimLeft(lines[i], " \t")
		if !inSection && (len(raw) == 0 || raw[0] != '[') {
			continue // outside a section only a header matters
		}
		line := string(bytes.TrimSuffix(raw, []byte("\r")))
		if strings.HasPrefix(line, "[") {
			s, u, rest, ok := parseHeader(line)
			if !ok {
				inSection = false
				continue
			}
			section, sub, inSection = s, u, true
			line = strings.TrimLeft(rest, " \t") // "[core] editor = x" is one line
		}
		if !inSection || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, rest, ok := parseKey(line)
		if !ok {
			continue
		}
		// A value continues on the next line after a trailing backslash
		// outside quotes.
		val, cont := parseValue(rest)
		for cont && i+1 < len(lines) {
			i++
			more, c := parseValue(string(bytes.TrimSuffix(lines[i], []byte("\r"))))
			val += more
			cont = c
		}
		out = append(out, Entry{Section: section, Sub: sub, Key: key, Value: val, Line: n})
	}
	return out
}

// hasHeader reports whether a line of data, past its leading blanks, is a
// section header ("[name" followed by a blank, '"' or ']'): source code's
// "[]int{" and "[i]" at a line's start are not, so a file that is not a
// git config is passed over without allocating.
func hasHeader(data []byte) bool {
	for len(data) > 0 {
		j := 0
		for j < len(data) && (data[j] == ' ' || data[j] == '\t') {
			j++
		}
		if j < len(data) && data[j] == '[' {
			k := j + 1
			for k < len(data) && (data[k] == '-' || data[k] == '.' || data[k] >= '0' && data[k] <= '9' || data[k] >= 'a' && data[k] <= 'z' || data[k] >= 'A' && data[k] <= 'Z') {
				k++
			}
			if k > j+1 && k < len(data) && (data[k] == ']' || data[k] == ' ' || data[k] == '\t' || data[k] == '"') {
				return true
			}
		}
		nl := bytes.IndexByte(data[j:], '\n')
		if nl < 0 {
			return false
		}
		data = data[j+nl+1:]
	}
	return false
}

// parseHeader reads "[section]", "[section \"sub\"]" or the older
// "[section.sub]"; rest is what follows the closing bracket.
func parseHeader(line string) (section, sub, rest string, ok bool) {
	body := line[1:]
	if q := strings.IndexByte(body, '"'); q >= 0 && (strings.IndexByte(body, ']') < 0 || q < strings.IndexByte(body, ']')) {
		name := strings.TrimRight(body[:q], " \t")
		if !validSection(name) {
			return "", "", "", false
		}
		var b strings.Builder
		j := q + 1
		for ; j < len(body) && body[j] != '"'; j++ {
			if body[j] == '\\' && j+1 < len(body) {
				j++
			}
			b.WriteByte(body[j])
		}
		if j+1 >= len(body) || body[j+1] != ']' {
			return "", "", "", false
		}
		return strings.ToLower(name), b.String(), body[j+2:], true
	}
	end := strings.IndexByte(body, ']')
	if end < 0 {
		return "", "", "", false
	}
	name := body[:end]
	if !validSection(name) {
		return "", "", "", false
	}
	name = strings.ToLower(name)
	if dot := strings.IndexByte(name, '.'); dot >= 0 {
		return name[:dot], name[dot+1:], body[end+1:], true
	}
	return name, "", body[end+1:], true
}

func validSection(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// parseKey reads a variable name (a letter, then letters, digits and
// '-') and returns what follows it: "" for a bare boolean, else the text
// after '='.
func parseKey(line string) (key, rest string, ok bool) {
	j := 0
	for j < len(line) {
		c := line[j]
		if c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			j++
			continue
		}
		break
	}
	if j == 0 || !(line[0] >= 'a' && line[0] <= 'z' || line[0] >= 'A' && line[0] <= 'Z') {
		return "", "", false
	}
	key = strings.ToLower(line[:j])
	tail := strings.TrimLeft(line[j:], " \t")
	switch {
	case tail == "" || tail[0] == '#' || tail[0] == ';':
		return key, "", true
	case tail[0] == '=':
		return key, tail[1:], true
	}
	return "", "", false
}

// parseValue unquotes a value up to a comment; cont reports a trailing
// backslash (the value goes on).
func parseValue(s string) (val string, cont bool) {
	var b strings.Builder
	quoted := false
	s = strings.TrimLeft(s, " \t")
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && j+1 == len(s):
			return strings.TrimSpace(b.String()), true
		case c == '\\':
			j++
			switch s[j] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[j])
			}
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String()), false
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String()), false
}
