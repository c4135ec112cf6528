package spec

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/internal/patch"
)

// BaseResolver returns the files and deletes of a recorded hypothesis named
// by a spec's "base" (RUN/HYP or @last/HYP). A nil BaseResolver refuses
// every base.
type BaseResolver func(ref string) (files []File, deletes []string, err error)

// Resolve validates every hypothesis against the workspace checkout and
// returns the final files and deletes of each, in spec order. It reads the
// workspace, the edits' source files and the bases, and writes nothing.
// Every refusal is a *SpecError.
// lim (optional) bounds what it reads (Limits; the defaults without).
func Resolve(spec *Spec, specDir, workspace string, bases BaseResolver, lim ...Limits) ([]Hypothesis, error) {
	return ResolveContext(context.Background(), spec, specDir, workspace, bases, lim...)
}

// ResolveContext is Resolve, stopping with ctx's error (nothing read
// further, nothing written) once ctx is done: a spec of many edits takes
// a while, and a signal must end it then too (docs/cli.md, exit 130).
func ResolveContext(ctx context.Context, spec *Spec, specDir, workspace string, bases BaseResolver, lim ...Limits) ([]Hypothesis, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(workspace); err != nil || !fi.IsDir() {
		return nil, &SpecError{Msg: fmt.Sprintf("workspace %s is not a directory", workspace)}
	}
	out := make([]Hypothesis, 0, len(spec.Hypotheses))
	for i := range spec.Hypotheses {
		h, err := resolveHyp(ctx, &spec.Hypotheses[i], spec.Common, specDir, workspace, bases, limitsOf(lim))
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// resolveHyp builds one hypothesis in docs/spec.md's order: the checkout,
// the base chain, the spec's common part, then its own edits, deletes and
// patch.
func resolveHyp(ctx context.Context, h *SpecHyp, common *SpecCommon, specDir, workspace string, bases BaseResolver, lim Limits) (Hypothesis, error) {
	v := &view{ctx: ctx, ws: workspace, hyp: h.Name, files: map[string]File{}, deletes: map[string]bool{}, fileIdx: newPathIndex(), delIdx: newPathIndex(), common: map[string]bool{}, lim: lim}
	if err := v.loadBase(h.Base, bases); err != nil {
		return Hypothesis{}, err
	}
	if common != nil {
		v.prefix, v.inCommon = "common.", true
		if err := v.apply(&SpecHyp{Name: h.Name, Edits: common.Edits, Delete: common.Delete, Patch: common.Patch}, specDir); err != nil {
			return Hypothesis{}, err
		}
		v.prefix, v.inCommon = "", false
		v.snapCommon()
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
	var changes []patch.Change
	if h.Patch != "" {
		var err error
		if changes, err = patch.Apply(h.Patch, v.read); err != nil {
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
		if i%256 == 0 {
			if err := v.ctx.Err(); err != nil {
				return err
			}
		}
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
				if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(e.File) {
					// "file" is relative to the spec's directory, not the
					// workspace (docs/spec.md): say which was searched.
					return v.fail(field+".file", "cannot read %s: %v in %s (a \"file\" is relative to the spec's directory; the file the edit writes is \"path\")", e.File, pathErr(err), specDir)
				}
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
		if i%256 == 0 {
			if err := v.ctx.Err(); err != nil {
				return err
			}
		}
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
		v.setFile(File{Path: f.Path, Content: f.Content, Mode: f.Mode.Perm()})
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
			v.setDelete(p)
		}
	}
	return nil
}

// checkOverlaps refuses a path proposed twice by one hypothesis (across
// edits, delete and patch targets) or inside another proposed path: the
// result would depend on the order of writes and deletes.
func checkOverlaps(h *SpecHyp, changes []patch.Change, v *view) error {
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

// ResolveBaseline is the baseline --baseline adds: no edits of its own,
// and the spec's common part, like every hypothesis.
func ResolveBaseline(spec *Spec, specDir, workspace string, lim ...Limits) (Hypothesis, error) {
	return resolveHyp(context.Background(), &SpecHyp{Name: "baseline"}, spec.Common, specDir, workspace, nil, limitsOf(lim))
}
