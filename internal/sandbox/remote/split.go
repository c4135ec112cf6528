package remote

import (
	"errors"
	"strings"
)

// SplitCommand splits $SHADOW_SSH_COMMAND into words the way a POSIX shell
// would for a simple command (sh(1) "Quoting"): blanks separate words,
// single quotes keep everything up to the next one, double quotes keep
// everything but let a backslash escape $ ` " \ and newline, and an
// unquoted backslash keeps the next character. Expansions, redirections and
// pipelines are not interpreted: it names a program and its arguments,
// like git's GIT_SSH_COMMAND.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("no program named")
	}
	return words, nil
}

// shellQuote quotes one word for the remote user's shell: ssh joins its
// command arguments with spaces and hands the line to that shell
// (ssh(1) "If a command is specified, it is executed on the remote host
// instead of a login shell").
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellLine quotes every word of argv for the remote shell.
func shellLine(argv ...string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
