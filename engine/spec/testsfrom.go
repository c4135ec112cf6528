package spec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// TestsFrom is the tests written before the candidates were seen
// (--tests-from DIR|PATCH, the spec's "tests_from", MCP shadow_run's
// tests_from; docs/spec.md): the final content of every file they write,
// resolved against the checkout alone. They are the judge's, as the
// checkout's tests are: laid over the baseline and every candidate, never
// proposed, recorded or applied as anyone's.
type TestsFrom struct {
	// Source is the directory or patch file, absolute.
	Source string
	// Kind is "dir" (files laid over the workspace at the same relative
	// paths) or "patch" (a unified diff over the checkout).
	Kind  string
	Files []File // sorted by Path
}

// Paths are the workspace-relative paths the tests write, sorted.
func (t *TestsFrom) Paths() []string {
	if t == nil {
		return nil
	}
	out := make([]string, len(t.Files))
	for i, f := range t.Files {
		out[i] = f.Path
	}
	return out
}

var editIndex = regexp.MustCompile(`^edits\[(\d+)\](.*)$`)

// ResolveTestsFrom reads source (absolute, or relative to dir) as a
// directory of files or a unified diff and resolves it against the
// workspace checkout with the rules of a hypothesis's edits and patch
// (docs/spec.md, "Refusals"). field names where it was given
// ("--tests-from", "tests_from") in every refusal, a *SpecError whose
// message says which file and what: exit 2, nothing written.
func ResolveTestsFrom(ctx context.Context, field, source, dir, workspace string, lim Limits) (*TestsFrom, error) {
	if source == "" {
		return nil, &SpecError{Field: field, Msg: "empty: give a directory of test files or a unified diff"}
	}
	abs := source
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, abs)
	}
	abs = filepath.Clean(abs)
	bad := func(format string, a ...any) error {
		return &SpecError{Field: field, Msg: abs + ": " + fmt.Sprintf(format, a...)}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, bad("%v", pathErr(err))
	}
	tf := &TestsFrom{Source: abs, Kind: "patch"}
	h := &SpecHyp{Name: field}
	var rels []string
	switch {
	case fi.IsDir():
		tf.Kind = "dir"
		if rels, err = testsFromDir(abs); err != nil {
			return nil, bad("%v", err)
		}
		if len(rels) == 0 {
			return nil, bad("the directory holds no file: --tests-from DIR lays its files over the workspace at the same relative paths")
		}
		for _, r := range rels {
			h.Edits = append(h.Edits, SpecEdit{Path: r, File: filepath.Join(abs, filepath.FromSlash(r))})
		}
	case fi.Mode().IsRegular():
		b, err := readEditSource(abs, lim.maxEdit())
		if err != nil {
			return nil, bad("%v", err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return nil, bad("empty: a patch is a unified diff, as git diff prints it")
		}
		h.Patch = string(b)
	default:
		return nil, bad("neither a directory nor a regular file")
	}
	v := &view{ctx: ctx, ws: workspace, hyp: "", files: map[string]File{}, deletes: map[string]bool{}, fileIdx: newPathIndex(), delIdx: newPathIndex(), common: map[string]bool{}, lim: lim}
	if err := v.apply(h, abs); err != nil {
		var se *SpecError
		if !errors.As(err, &se) {
			return nil, err
		}
		where := se.Field
		if m := editIndex.FindStringSubmatch(se.Field); m != nil {
			if i, _ := strconv.Atoi(m[1]); i < len(rels) {
				where = rels[i]
			}
		}
		if where == "patch" {
			return nil, bad("%s", se.Msg)
		}
		return nil, bad("%s: %s", where, se.Msg)
	}
	res := v.result()
	if len(res.Deletes) > 0 {
		return nil, bad("deletes %s: tests written before the candidates add or change files, they delete none (a rename deletes its source)", res.Deletes[0])
	}
	if len(res.Files) == 0 {
		return nil, bad("changes no file")
	}
	tf.Files = res.Files
	return tf, nil
}

// testsFromDir lists a directory's files, '/'-separated and relative to
// it, sorted. Only regular files are taken: a symlink would name a file
// outside what was given, a device or FIFO has no content to lay over.
// Its .git (a directory that is a checkout of its own) is refused by the
// path check, as every edit into .git is.
func testsFromDir(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !d.Type().IsRegular() {
			kind := "not a regular file"
			if d.Type()&fs.ModeSymlink != 0 {
				kind = "a symlink"
			}
			return fmt.Errorf("%s: %s: give the test files themselves", rel, kind)
		}
		if msg := checkPath(rel); msg != "" {
			return fmt.Errorf("%s: %s", rel, msg)
		}
		out = append(out, rel)
		return nil
	})
	sort.Strings(out)
	return out, err
}
