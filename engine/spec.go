package engine

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SpecError is the error of every refusal of a spec (DESIGN.md §2): main
// prints it and exits 2. Hyp is empty for spec-level fields ("command",
// "timeout"...); Field is empty when the refusal is about the whole document.
type SpecError struct {
	Hyp   string
	Field string
	Msg   string
}

func (e *SpecError) Error() string {
	var b strings.Builder
	if e.Hyp != "" {
		fmt.Fprintf(&b, "hypothesis %q: ", e.Hyp)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// BaseResolver returns the files and deletes of a recorded hypothesis named
// by a spec's "base" (RUN/HYP or @last/HYP). A nil BaseResolver refuses
// every base.
type BaseResolver func(ref string) (files []File, deletes []string, err error)

// LoadSpec reads a spec from path ("-" = the stdin reader given) and decodes
// it strictly: unknown or repeated fields, wrong types and trailing data are
// refused. specDir is the spec file's directory (the current directory for
// "-"): edits' "file" sources are relative to it. Every error is a
// *SpecError.
func LoadSpec(path string, stdin io.Reader) (spec *Spec, specDir string, err error) {
	var data []byte
	if path == "-" {
		if stdin == nil {
			return nil, "", &SpecError{Msg: "spec on stdin, but no stdin"}
		}
		data, err = io.ReadAll(stdin)
		if err == nil {
			specDir, err = os.Getwd()
		}
	} else {
		data, err = os.ReadFile(path)
		if err == nil {
			specDir, err = filepath.Abs(filepath.Dir(path))
		}
	}
	if err != nil {
		return nil, "", &SpecError{Msg: fmt.Sprintf("cannot read spec %s: %v", path, err)}
	}
	spec, err = DecodeSpec(data)
	if err != nil {
		return nil, "", err
	}
	return spec, specDir, nil
}

// DecodeSpec decodes and validates (without a workspace) a spec document,
// for callers that get it other than from a file (the MCP server). Every
// error is a *SpecError.
func DecodeSpec(data []byte) (*Spec, error) {
	// encoding/json matches keys case-insensitively and lets a repeated key
	// win silently; a spec is a contract, so walk the tokens first and
	// refuse anything the struct does not name exactly.
	if err := checkShape(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var spec Spec
	if err := dec.Decode(&spec); err != nil {
		return nil, &SpecError{Msg: "invalid spec: " + err.Error()}
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return &spec, nil
}

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
	if s.Net != "" && s.Net != "host" && s.Net != "isolated" {
		return fail("net", "must be host or isolated, got %q", s.Net)
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

// checkShape walks the JSON tokens against Spec's json tags: exact key
// names, no repeated keys, the right JSON type for every value, nothing
// after the document.
func checkShape(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := shapeWalker{dec: dec}
	if err := w.walk(reflect.TypeOf(Spec{}), ""); err != nil {
		return w.locate(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return &SpecError{Msg: "trailing data after the spec at " + position(data, dec.InputOffset())}
	}
	return nil
}

type shapeWalker struct{ dec *json.Decoder }

// shapeErr is a refusal at a JSON path such as hypotheses[1].edits[0].path.
type shapeErr struct{ path, msg string }

func (e *shapeErr) Error() string { return e.path + ": " + e.msg }

func (w shapeWalker) walk(t reflect.Type, path string) error {
	tok, err := w.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return &syntaxErr{offset: w.dec.InputOffset(), err: err}
	}
	if tok == nil {
		return nil // null leaves the zero value, as encoding/json does
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if _, ok := tok.(string); ok && t == reflect.TypeOf(RemoteNode{}) {
		return nil // a remote node may be written as its bare name
	}
	want := map[reflect.Kind]string{reflect.Struct: "an object", reflect.Map: "an object",
		reflect.Slice: "an array", reflect.String: "a string", reflect.Int: "an integer", reflect.Bool: "true or false"}[t.Kind()]
	wrong := &shapeErr{path, "must be " + want}
	switch t.Kind() {
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return wrong
		}
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return wrong
		}
	case reflect.Int:
		n, ok := tok.(json.Number)
		if !ok {
			return wrong
		}
		if _, err := strconv.Atoi(n.String()); err != nil {
			return wrong
		}
	case reflect.Slice:
		if tok != json.Delim('[') {
			return wrong
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.walk(t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
		return err
	case reflect.Struct, reflect.Map:
		if tok != json.Delim('{') {
			return wrong
		}
		seen := map[string]bool{}
		for w.dec.More() {
			k, err := w.dec.Token()
			if err != nil {
				return err
			}
			key := k.(string)
			sub := key
			if path != "" {
				sub = path + "." + key
			}
			if seen[key] {
				return &shapeErr{sub, "given twice"}
			}
			seen[key] = true
			var ft reflect.Type
			if t.Kind() == reflect.Map {
				ft = t.Elem()
			} else {
				f, ok := fieldByTag(t, key)
				if !ok {
					return &shapeErr{sub, "unknown field"}
				}
				ft = f.Type
			}
			if err := w.walk(ft, sub); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
		return err
	}
	return nil
}

func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// locate turns a shapeErr into a SpecError naming the hypothesis when the
// path is inside one whose name can be read.
func (w shapeWalker) locate(data []byte, err error) error {
	var se *shapeErr
	var syn *syntaxErr
	var js *json.SyntaxError
	if errors.As(err, &syn) || errors.As(err, &js) {
		return syntaxAt(data, err)
	}
	if !errors.As(err, &se) {
		var specErr *SpecError
		if errors.As(err, &specErr) {
			return specErr
		}
		return &SpecError{Msg: "invalid JSON: " + err.Error()}
	}
	out := &SpecError{Field: se.path, Msg: se.msg}
	var i int
	var rest string
	if n, _ := fmt.Sscanf(se.path, "hypotheses[%d]", &i); n == 1 {
		_, rest, _ = strings.Cut(se.path, "].")
		var loose struct{ Hypotheses []json.RawMessage }
		_ = json.Unmarshal(data, &loose)
		if i < len(loose.Hypotheses) && rest != "" {
			// Exact key only: a "Name" key is itself the refused field.
			var h map[string]json.RawMessage
			var name string
			if json.Unmarshal(loose.Hypotheses[i], &h) == nil && json.Unmarshal(h["name"], &name) == nil && name != "" {
				out.Hyp, out.Field = name, rest
			}
		}
	}
	return out
}

// Resolve validates every hypothesis against the workspace checkout and
// returns the final files and deletes of each, in spec order. It reads the
// workspace, the edits' source files and the bases, and writes nothing.
// Every refusal is a *SpecError.
// lim (optional) bounds what it reads (Limits; the defaults without).
func Resolve(spec *Spec, specDir, workspace string, bases BaseResolver, lim ...Limits) ([]Hypothesis, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(workspace); err != nil || !fi.IsDir() {
		return nil, &SpecError{Msg: fmt.Sprintf("workspace %s is not a directory", workspace)}
	}
	out := make([]Hypothesis, 0, len(spec.Hypotheses))
	for i := range spec.Hypotheses {
		h, err := resolveHyp(&spec.Hypotheses[i], spec.Common, specDir, workspace, bases, limitsOf(lim))
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// view is a hypothesis being built: the checkout, overlaid by the base's
// files and deletes, then by the hypothesis's own proposals.
type view struct {
	ws      string
	hyp     string
	files   map[string]File
	deletes map[string]bool
	// common marks the paths whose current file or delete came from the
	// spec's common part (inCommon while it is applied); the hypothesis's
	// own write or delete of such a path makes it its own.
	common   map[string]bool
	inCommon bool
	prefix   string // "common." while the common part is applied
	lim      Limits // what one edit may hold (editsource.go)
}

func (v *view) fail(field, format string, args ...any) error {
	return &SpecError{Hyp: v.hyp, Field: v.prefix + field, Msg: fmt.Sprintf(format, args...)}
}

// mark records who set p: the common part or the hypothesis.
func (v *view) mark(p string) {
	if v.inCommon {
		v.common[p] = true
	} else {
		delete(v.common, p)
	}
}

// lstat looks a workspace-relative path up in the checkout; a missing path
// gives (nil, nil).
func (v *view) lstat(p string) (os.FileInfo, error) {
	fi, err := os.Lstat(filepath.Join(v.ws, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return fi, err
}

// checkParents refuses a path whose existing ancestor in the checkout is a
// symlink (writing through it would escape the proposed path) or not a
// directory.
func (v *view) checkParents(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		fi, err := v.lstat(p[:i])
		switch {
		case err != nil:
			return err.Error()
		case fi == nil:
			return "" // the rest does not exist either
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Sprintf("parent %q is a symlink", p[:i])
		case !fi.IsDir():
			return fmt.Sprintf("parent %q is not a directory", p[:i])
		}
	}
	return ""
}

// deletedBy returns the base delete that covers p (p itself or an
// ancestor), or "".
func (v *view) deletedBy(p string) string {
	for q := p; ; {
		if v.deletes[q] {
			return q
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return ""
		}
		q = q[:i]
	}
}

// checkTarget refuses a path the hypothesis writes as a regular file.
func (v *view) checkTarget(field, p string) error {
	if msg := v.checkParents(p); msg != "" {
		return v.fail(field, "%s", msg)
	}
	fi, err := v.lstat(p)
	switch {
	case err != nil:
		return v.fail(field, "%v", err)
	case fi == nil, fi.Mode().IsRegular(), fi.Mode()&os.ModeSymlink != 0:
		// A symlink target is replaced by a regular file, not followed.
	case fi.IsDir():
		return v.fail(field, "%q is a directory", p)
	default:
		return v.fail(field, "%q is not a regular file", p)
	}
	for q := range v.files {
		if strings.HasPrefix(q, p+"/") {
			return v.fail(field, "%q is a directory in the base (it holds %q)", p, q)
		}
		if strings.HasPrefix(p, q+"/") {
			return v.fail(field, "parent %q is a file in the base", q)
		}
	}
	if d := v.deletedBy(p); d != "" && d != p {
		return v.fail(field, "%q is inside %q, which the base deletes", p, d)
	}
	return nil
}

// existingMode is the permission of p in the base or the checkout, else
// 0644 (also for a symlink, which the new file replaces).
func (v *view) existingMode(p string) os.FileMode {
	if f, ok := v.files[p]; ok {
		return f.Mode
	}
	if v.deletedBy(p) == "" {
		if fi, err := v.lstat(p); err == nil && fi != nil && fi.Mode().IsRegular() {
			return fi.Mode().Perm()
		}
	}
	return 0o644
}

func (v *view) write(p string, content []byte, mode os.FileMode) {
	delete(v.deletes, p)
	v.files[p] = File{Path: p, Content: content, Mode: mode}
	v.mark(p)
}

// remove deletes p (rm -rf) on top of the view.
func (v *view) remove(field, p string) error {
	if msg := v.checkParents(p); msg != "" {
		return v.fail(field, "%s", msg)
	}
	inBase := false
	for q := range v.files {
		if q == p || strings.HasPrefix(q, p+"/") {
			delete(v.files, q)
			inBase = true
		}
	}
	if d := v.deletedBy(p); d != "" {
		return v.fail(field, "%q does not exist (the base deletes %q)", p, d)
	}
	fi, err := v.lstat(p)
	if err != nil {
		return v.fail(field, "%v", err)
	}
	if fi == nil {
		if inBase {
			return nil // only the base had it: dropping its files is enough
		}
		return v.fail(field, "%q does not exist", p)
	}
	for q := range v.deletes {
		if strings.HasPrefix(q, p+"/") {
			delete(v.deletes, q) // covered by deleting p
		}
	}
	v.deletes[p] = true
	v.mark(p)
	return nil
}

// read serves ApplyPatch: the base's version of a file where it has one,
// else the checkout's.
func (v *view) read(p string) ([]byte, bool, error) {
	if msg := checkPath(p); msg != "" {
		return nil, false, errors.New(msg)
	}
	if f, ok := v.files[p]; ok {
		return f.Content, true, nil
	}
	if v.deletedBy(p) != "" {
		return nil, false, nil
	}
	if msg := v.checkParents(p); msg != "" {
		return nil, false, errors.New(msg)
	}
	fi, err := v.lstat(p)
	switch {
	case err != nil:
		return nil, false, err
	case fi == nil:
		return nil, false, nil
	case fi.IsDir():
		return nil, false, errors.New("is a directory")
	case fi.Mode()&os.ModeSymlink != 0:
		return nil, false, errors.New("is a symlink; patching symlinks is not supported")
	case !fi.Mode().IsRegular():
		return nil, false, errors.New("is not a regular file")
	}
	b, err := os.ReadFile(filepath.Join(v.ws, filepath.FromSlash(p)))
	return b, err == nil, err
}

// resolveHyp builds one hypothesis in DESIGN §2's order: the checkout,
// the base chain, the spec's common part, then its own edits, deletes and
// patch.
func resolveHyp(h *SpecHyp, common *SpecCommon, specDir, workspace string, bases BaseResolver, lim Limits) (Hypothesis, error) {
	v := &view{ws: workspace, hyp: h.Name, files: map[string]File{}, deletes: map[string]bool{}, common: map[string]bool{}, lim: lim}
	if err := v.loadBase(h.Base, bases); err != nil {
		return Hypothesis{}, err
	}
	if common != nil {
		v.prefix, v.inCommon = "common.", true
		if err := v.apply(&SpecHyp{Name: h.Name, Edits: common.Edits, Delete: common.Delete, Patch: common.Patch}, specDir); err != nil {
			return Hypothesis{}, err
		}
		v.prefix, v.inCommon = "", false
	}
	if err := v.apply(h, specDir); err != nil {
		return Hypothesis{}, err
	}
	return v.result(), nil
}

// apply lays one set of proposals (a hypothesis's own, or the spec's
// common part) over the view.
func (v *view) apply(h *SpecHyp, specDir string) error {

	// The patch reads the base view, so apply it before the edits land;
	// overlapping proposals are refused below anyway.
	var changes []PatchChange
	if h.Patch != "" {
		var err error
		if changes, err = ApplyPatch(h.Patch, v.read); err != nil {
			return v.fail("patch", "%v", err)
		}
		// A rename or copy keeps its source's mode; read it before the
		// source is deleted or edited.
		for i, c := range changes {
			if c.From != "" && c.Mode == 0 {
				changes[i].Mode = v.existingMode(c.From)
			}
		}
	}
	if err := checkOverlaps(h, changes, v); err != nil {
		return err
	}

	for i, e := range h.Edits {
		field := fmt.Sprintf("edits[%d]", i)
		if err := v.checkTarget(field+".path", e.Path); err != nil {
			return err
		}
		var content []byte
		var err error
		switch {
		case e.Content != nil:
			content = []byte(*e.Content)
		case e.ContentBase64 != nil:
			content, err = decodeBase64(*e.ContentBase64)
		default:
			src := e.File
			if !filepath.IsAbs(src) {
				src = filepath.Join(specDir, src)
			}
			if content, err = readEditSource(src, v.lim.maxEdit()); err != nil {
				return v.fail(field+".file", "cannot read %s: %v", e.File, pathErr(err))
			}
		}
		if err != nil {
			return v.fail(field+".content_base64", "invalid base64: %v", err)
		}
		if n := int64(len(content)); n > v.lim.maxEdit() {
			return v.fail(field, "%v", errTooBig(n, v.lim.maxEdit()))
		}
		mode, _ := parseMode(e.Mode) // checked by Validate
		if e.Mode == "" {
			mode = v.existingMode(e.Path)
		}
		v.write(e.Path, content, mode)
	}
	for i, p := range h.Delete {
		if err := v.remove(fmt.Sprintf("delete[%d]", i), p); err != nil {
			return err
		}
	}
	for _, c := range changes {
		field := fmt.Sprintf("patch (%s)", c.Path)
		if c.Deleted {
			if err := v.remove(field, c.Path); err != nil {
				return err
			}
			continue
		}
		if err := v.checkTarget(field, c.Path); err != nil {
			return err
		}
		mode := c.Mode
		if mode == 0 {
			mode = v.existingMode(c.Path)
		}
		v.write(c.Path, c.Content, mode)
	}
	return nil
}

// pathErr drops the path an *fs.PathError repeats, for shorter messages.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (v *view) loadBase(ref string, bases BaseResolver) error {
	if ref == "" {
		return nil
	}
	if bases == nil {
		return v.fail("base", "base is not supported yet")
	}
	files, deletes, err := bases(ref)
	if err != nil {
		return v.fail("base", "%v", err)
	}
	// The record was valid when made, but the checkout may have changed
	// since: check its paths like the hypothesis's own.
	for _, f := range files {
		if msg := checkPath(f.Path); msg != "" {
			return v.fail("base", "recorded file: %s", msg)
		}
		if err := v.checkTarget("base", f.Path); err != nil {
			return err
		}
		v.files[f.Path] = File{Path: f.Path, Content: f.Content, Mode: f.Mode.Perm()}
	}
	for _, p := range deletes {
		if msg := checkPath(p); msg != "" {
			return v.fail("base", "recorded delete: %s", msg)
		}
		if _, inFiles := v.files[p]; inFiles {
			return v.fail("base", "%q is both written and deleted by the base", p)
		}
		// A path gone from the checkout since needs no delete.
		if fi, err := v.lstat(p); err == nil && fi != nil {
			v.deletes[p] = true
		}
	}
	return nil
}

// checkOverlaps refuses a path proposed twice by one hypothesis (across
// edits, delete and patch targets) or inside another proposed path: the
// result would depend on the order of writes and deletes.
func checkOverlaps(h *SpecHyp, changes []PatchChange, v *view) error {
	owner := map[string]string{} // path -> field that proposed it
	type prop struct{ path, field string }
	var props []prop
	for i, e := range h.Edits {
		props = append(props, prop{e.Path, fmt.Sprintf("edits[%d].path", i)})
	}
	for i, p := range h.Delete {
		props = append(props, prop{p, fmt.Sprintf("delete[%d]", i)})
	}
	for _, c := range changes {
		if msg := checkPath(c.Path); msg != "" {
			return v.fail("patch", "%s", msg)
		}
		props = append(props, prop{c.Path, fmt.Sprintf("patch (%s)", c.Path)})
	}
	for _, p := range props {
		if f, dup := owner[p.path]; dup {
			return v.fail(p.field, "%q is also proposed by %s", p.path, f)
		}
		owner[p.path] = p.field
	}
	for _, p := range props {
		for i := 0; i < len(p.path); i++ {
			if p.path[i] == '/' {
				if f, ok := owner[p.path[:i]]; ok {
					return v.fail(p.field, "%q is inside %q, proposed by %s", p.path, p.path[:i], f)
				}
			}
		}
	}
	return nil
}

func (v *view) result() Hypothesis {
	h := Hypothesis{Name: v.hyp}
	for p, f := range v.files {
		if v.common[p] {
			h.Common = append(h.Common, f)
		} else {
			h.Files = append(h.Files, f)
		}
	}
	for p := range v.deletes {
		if v.common[p] {
			h.CommonDeletes = append(h.CommonDeletes, p)
		} else {
			h.Deletes = append(h.Deletes, p)
		}
	}
	sort.Slice(h.Files, func(i, j int) bool { return h.Files[i].Path < h.Files[j].Path })
	sort.Slice(h.Common, func(i, j int) bool { return h.Common[i].Path < h.Common[j].Path })
	sort.Strings(h.Deletes)
	sort.Strings(h.CommonDeletes)
	return h
}

// ResolveBaseline is the baseline --baseline adds: no edits of its own,
// and the spec's common part, like every hypothesis.
func ResolveBaseline(spec *Spec, specDir, workspace string, lim ...Limits) (Hypothesis, error) {
	return resolveHyp(&SpecHyp{Name: "baseline"}, spec.Common, specDir, workspace, nil, limitsOf(lim))
}
