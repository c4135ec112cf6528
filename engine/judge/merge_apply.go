package judge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// What `shadow merge --apply` needs of the engine. A shard's report is
// input from another machine: it decides which of the spec's hypotheses
// won (its verdicts are trusted as a run's), never what is written. The
// winner's files come from the spec resolved on this machine (checked
// against the shards' spec_sha256 by the caller), its judge part from the
// same split a run makes (JudgePaths, not the report's judge_edits), and
// what each target must hold from the shards' commit (CommitOriginals),
// not from the report's diff.

// JudgePaths is each hypothesis's judge part (a run's judge_edits: the
// test files, runner configuration and common files it writes or
// deletes), as a run on a checkout holding orig splits it (judged.go).
func JudgePaths(hyps []Hypothesis, testPaths []string, orig map[string]FileState) map[string][]string {
	jd := newJudge(testPaths, commonPaths(hyps))
	out := make(map[string][]string, len(hyps))
	for _, h := range hyps {
		out[h.Name] = splitJudge(jd, h, existedIn(orig)).paths
	}
	return out
}

// CommitOriginals is ReadOriginals as of a commit of the checkout ws: what
// every path the hypotheses touch held in commit (`git ls-tree`, `git
// cat-file`). It is what the shards ran on, so `--apply` refuses a target
// that differs from it (a change not committed, or a commit since). Git
// keeps only a file's executable bit: a target whose permission bits
// differ from the checkout's file only in what git does not keep (0664
// for 0644) takes the checkout's.
func CommitOriginals(ws, commit string, hyps []Hypothesis) (map[string]FileState, error) {
	seen := map[string]bool{}
	var paths []string
	for _, h := range hyps {
		for _, f := range h.Files {
			if !seen[f.Path] {
				seen[f.Path] = true
				paths = append(paths, f.Path)
			}
		}
		for _, p := range h.Deletes {
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	out := make(map[string]FileState, len(paths))
	for _, p := range paths {
		out[p] = FileState{}
	}
	if len(paths) == 0 {
		return out, nil
	}
	// --literal-pathspecs: a path is a path, never a glob (git(1)). One
	// ls-tree for every path; a directory whose files are asked for too is
	// listed through them, not as an entry, so a path the first answer
	// leaves out is asked alone (a new file's answer is empty).
	found := map[string]bool{}
	lsTree := func(ps []string) error {
		args := append(append([]string{"--literal-pathspecs"}, safeGitConfig()...), "-C", ws, "ls-tree", "-z", commit, "--")
		lt, err := fsutil.Command("git", append(args, ps...)...).Output()
		if err != nil {
			return fmt.Errorf("git ls-tree %s in %s: %v", commit, ws, gitErr(err))
		}
		for _, rec := range bytes.Split(lt, []byte{0}) {
			meta, p, ok := strings.Cut(string(rec), "\t")
			f := strings.Fields(meta) // MODE TYPE OBJECT
			if !ok || len(f) != 3 || !seen[p] || found[p] {
				continue
			}
			st, err := commitState(ws, commit, p, f[0], f[1], f[2])
			if err != nil {
				return err
			}
			found[p], out[p] = true, st
		}
		return nil
	}
	if err := lsTree(paths); err != nil {
		return nil, err
	}
	for _, p := range paths {
		if !found[p] {
			if err := lsTree([]string{p}); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// commitState is one ls-tree entry's FileState: a blob's bytes (a
// symlink's target), a tree as a directory; the permission bits git does
// not keep are the checkout's where it has that path (see CommitOriginals).
func commitState(ws, commit, p, modeText, typ, object string) (FileState, error) {
	mode, _ := strconv.ParseUint(modeText, 8, 32)
	local, lerr := os.Lstat(filepath.Join(ws, filepath.FromSlash(p)))
	st := FileState{Exists: true}
	switch typ {
	case "blob":
		b, err := fsutil.Command("git", append(safeGitConfig(), "-C", ws, "cat-file", "blob", object)...).Output()
		if err != nil {
			return st, fmt.Errorf("git cat-file %s (%s at %s): %v", object, p, commit, gitErr(err))
		}
		st.Content = b
		if mode == 0o120000 {
			st.Link, st.Mode = true, 0o777
			break
		}
		st.Mode = os.FileMode(mode).Perm()
		if lerr == nil && local.Mode().IsRegular() && (local.Mode().Perm()&0o111 != 0) == (st.Mode&0o111 != 0) {
			st.Mode = local.Mode().Perm()
		}
	default: // a tree, or a submodule's commit: a directory
		st.Dir, st.Mode = true, 0o755
		if lerr == nil && local.IsDir() {
			st.Mode = local.Mode().Perm()
		}
	}
	return st, nil
}

func gitErr(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return strings.TrimSpace(string(ee.Stderr))
	}
	return err.Error()
}

// HypDiff is what a run's result says of h's edits against orig (diff,
// capped as a report's; files; deleted): `shadow merge --apply` records
// these from the spec resolved here, not a shard report's.
func HypDiff(h Hypothesis, orig map[string]FileState) (diff string, files, deleted []string) {
	r := newResult(h, orig, "")
	return r.Diff, r.Files, r.Deleted
}
