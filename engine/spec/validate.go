package spec

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/bytesize"
)

// Validate checks what can be checked without a workspace: names, paths'
// syntax, edit sources, modes, and the spec-level settings. Resolve calls
// it; every error is a *SpecError.
func (s *Spec) Validate() error {
	if len(s.Hypotheses) == 0 {
		return &SpecError{Field: "hypotheses", Msg: "no hypotheses"}
	}
	seen := map[string]int{} // lower-cased name -> index
	for i, h := range s.Hypotheses {
		if h.Name == "" {
			return &SpecError{Field: fmt.Sprintf("hypotheses[%d].name", i), Msg: "name is empty"}
		}
		if !validName.MatchString(h.Name) || h.Name == "." || h.Name == ".." {
			// "." and ".." match the charset but cannot name a record
			// directory (RUN/HYP).
			return &SpecError{Hyp: h.Name, Field: "name", Msg: "a name is 1-64 of A-Z a-z 0-9 . _ - (and not . or ..)"}
		}
		// Names that differ only in case collide in the records on a
		// case-insensitive filesystem.
		if j, dup := seen[strings.ToLower(h.Name)]; dup {
			if other := s.Hypotheses[j].Name; other != h.Name {
				return &SpecError{Hyp: h.Name, Field: "name", Msg: fmt.Sprintf("duplicate name (hypotheses[%d] %q and [%d] differ only in case)", j, other, i)}
			}
			return &SpecError{Hyp: h.Name, Field: "name", Msg: fmt.Sprintf("duplicate name (hypotheses[%d] and [%d])", j, i)}
		}
		seen[strings.ToLower(h.Name)] = i
		if err := h.validate(); err != nil {
			return err
		}
	}
	if s.Common != nil {
		c := SpecHyp{Edits: s.Common.Edits, Delete: s.Common.Delete, Patch: s.Common.Patch}
		if err := c.validate(); err != nil {
			var se *SpecError
			if errors.As(err, &se) {
				se.Field = "common." + se.Field
			}
			return err
		}
	}
	return s.validateSettings()
}

var validName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func (h *SpecHyp) validate() error {
	fail := func(field, format string, args ...any) error {
		return &SpecError{Hyp: h.Name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	for i, e := range h.Edits {
		field := fmt.Sprintf("edits[%d]", i)
		if msg := checkPath(e.Path); msg != "" {
			return fail(field+".path", "%s", msg)
		}
		n := 0
		for _, set := range []bool{e.File != "", e.Content != nil, e.ContentBase64 != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fail(field, "give exactly one of file, content, content_base64 (%d given)", n)
		}
		if e.ContentBase64 != nil {
			if _, err := decodeBase64(*e.ContentBase64); err != nil {
				return fail(field+".content_base64", "invalid base64: %v", err)
			}
		}
		if e.File != "" && strings.ContainsRune(e.File, 0) {
			return fail(field+".file", "NUL in file name")
		}
		if strings.ContainsRune(e.File, '\\') {
			return fail(field+".file", "%s", backslashMsg(e.File))
		}
		if _, err := parseMode(e.Mode); err != nil {
			return fail(field+".mode", "%v", err)
		}
	}
	for i, p := range h.Delete {
		if msg := checkPath(p); msg != "" {
			return fail(fmt.Sprintf("delete[%d]", i), "%s", msg)
		}
	}
	return nil
}

func (s *Spec) validateSettings() error {
	fail := func(field, format string, args ...any) error {
		return &SpecError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	for i, a := range s.Command {
		if a == "" {
			return fail(fmt.Sprintf("command[%d]", i), "empty command element")
		}
		if strings.ContainsRune(a, 0) {
			return fail(fmt.Sprintf("command[%d]", i), "NUL in command element")
		}
	}
	if s.Timeout != "" {
		d, err := time.ParseDuration(s.Timeout)
		if err != nil {
			return fail("timeout", "%q is not a duration such as 90s or 5m", s.Timeout)
		}
		if d <= 0 {
			return fail("timeout", "must be positive, got %s", s.Timeout)
		}
	}
	if s.Jobs < 0 {
		return fail("jobs", "must be 0 (one per CPU) or more, got %d", s.Jobs)
	}
	if s.Net != "" && s.Net != "host" && s.Net != "isolated" && s.Net != "private" {
		return fail("net", "must be private, isolated or host, got %q", s.Net)
	}
	for _, p := range s.HostPorts {
		if p < 1 || p > 65535 {
			return fail("host_ports", "must be TCP ports (1-65535), got %d", p)
		}
	}
	if s.Memory != "" {
		if n, err := bytesize.Parse(s.Memory); err != nil || n <= 0 {
			return fail("memory", "must be a size like 2G, got %q", s.Memory)
		}
	}
	if s.Tmp != "" && s.Tmp != "shared" && s.Tmp != "private" {
		return fail("tmp", "must be shared or private, got %q", s.Tmp)
	}
	for k, v := range s.Env {
		switch {
		case k == "":
			return fail("env", "empty variable name")
		case strings.ContainsAny(k, "=\x00"):
			return fail("env", "variable name %q holds '=' or NUL", k)
		case strings.ContainsRune(v, 0):
			return fail("env", "value of %s holds NUL", k)
		}
	}
	if s.Confirm < 0 || s.Confirm > MaxConfirm {
		return fail("confirm", "must be 0 to %d reruns, got %d", MaxConfirm, s.Confirm)
	}
	for i, g := range s.TestPaths {
		if msg := checkGlob(g); msg != "" {
			return fail(fmt.Sprintf("test_paths[%d]", i), "%s", msg)
		}
	}
	if strings.ContainsFunc(s.JUnit, isControl) {
		return fail("junit", "control character in path")
	}
	if strings.ContainsRune(s.JUnit, '\\') {
		return fail("junit", "%s", backslashMsg(s.JUnit))
	}
	if strings.HasPrefix(s.JUnit, "/") {
		return fail("junit", "absolute path %q: junit is relative to the command's directory", s.JUnit)
	}
	for _, c := range strings.Split(s.JUnit, "/") {
		if c == ".." {
			return fail("junit", "'..' components are not allowed (%q): junit is relative to the command's directory", s.JUnit)
		}
	}
	return nil
}

// backslashMsg refuses a path with a backslash: a legal file name on Linux,
// but in a spec almost always a Windows path.
func backslashMsg(p string) string {
	return fmt.Sprintf("backslash in path %q: use / to separate components", p)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// checkPath returns why a workspace-relative proposed path is refused, or "".
func checkPath(p string) string {
	switch {
	case p == "":
		return "path is empty"
	case strings.ContainsFunc(p, isControl):
		return fmt.Sprintf("control character in path %q", p)
	case strings.HasPrefix(p, "/"):
		return "absolute paths are not allowed"
	case strings.ContainsRune(p, '\\'):
		return backslashMsg(p)
	}
	parts := strings.Split(p, "/")
	for i, c := range parts {
		switch {
		case c == "" && i == len(parts)-1:
			return fmt.Sprintf("trailing slash in %q", p)
		case c == "":
			return fmt.Sprintf("empty component in %q", p)
		case c == ".":
			return fmt.Sprintf("'.' component in %q", p)
		case c == "..":
			return fmt.Sprintf("'..' components are not allowed (%q)", p)
		case strings.EqualFold(c, ".git"):
			return fmt.Sprintf("paths into .git are not allowed (%q)", p)
		case len(c) > 255:
			return fmt.Sprintf("component longer than 255 bytes in %q", p)
		}
	}
	return ""
}

// parseMode reads an octal permission string ("0755" or "755"); "" means
// unset and gives 0.
func parseMode(s string) (os.FileMode, error) {
	if s == "" {
		return 0, nil
	}
	if !validMode.MatchString(s) {
		return 0, fmt.Errorf("%q is not an octal permission such as 0644 or 755 (0-0777)", s)
	}
	v, _ := strconv.ParseUint(s, 8, 32)
	return os.FileMode(v), nil
}

var validMode = regexp.MustCompile(`^0?[0-7]{1,3}$`)

// decodeBase64 takes standard base64, padded or not, line breaks allowed.
func decodeBase64(s string) ([]byte, error) {
	s = strings.NewReplacer("\n", "", "\r", "").Replace(s)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil && len(s)%4 != 0 {
		if b2, err2 := base64.RawStdEncoding.DecodeString(s); err2 == nil {
			return b2, nil
		}
	}
	return b, err
}

// MaxConfirm bounds --confirm: each rerun costs a whole test run.
const MaxConfirm = 20

// checkGlob returns why a test_paths glob is refused, or "".
func checkGlob(g string) string {
	switch {
	case g == "":
		return "empty glob"
	case strings.HasPrefix(g, "/"):
		return fmt.Sprintf("absolute glob %q: test_paths are relative to the workspace root", g)
	case strings.ContainsFunc(g, isControl):
		return fmt.Sprintf("control character in glob %q", g)
	case strings.ContainsRune(g, '\\'):
		return fmt.Sprintf("backslash in glob %q: use / to separate components (escapes are not supported)", g)
	}
	for _, c := range strings.Split(g, "/") {
		if _, err := path.Match(c, ""); err != nil {
			return fmt.Sprintf("bad glob %q: %v", g, err)
		}
	}
	return ""
}
