package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/engine"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// sourceFiles lists the checkout's source files, workspace-relative: with
// git, the tracked files plus the untracked ones that are not ignored
// (uncommitted edits included, since rsync sends the file as it is now);
// without git, every file. Paths under exclude (shadow's own state when
// it lies inside the checkout) are left out. The .git directory is listed
// as ".git" when it is one: it is mirrored whole, so git-based staleness,
// `git diff` and patches work on the node.
func sourceFiles(ws string, exclude []string) ([]string, error) {
	var files []string
	// core.fsmonitor off: $HOME is writable from every sandbox, and a
	// ~/.gitconfig a candidate planted there would otherwise name a
	// program this git runs as the user, outside any sandbox.
	cmd := fsutil.Command("git", "-c", "core.fsmonitor=false", "-C", ws, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				files = append(files, p)
			}
		}
		if fi, err := os.Lstat(filepath.Join(ws, ".git")); err == nil && fi.IsDir() {
			files = append(files, ".git")
		}
	} else {
		if _, lerr := fsutil.Tool("git"); lerr == nil && !strings.Contains(stderr.String(), "not a git repository") {
			return nil, fmt.Errorf("list the source files of %s: git ls-files: %v: %s", ws, err, strings.TrimSpace(stderr.String()))
		}
		err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(ws, p)
			files = append(files, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list the files of %s: %w", ws, err)
		}
	}
	kept := files[:0]
	for _, f := range files {
		abs := filepath.Join(ws, filepath.FromSlash(f))
		inside := false
		for _, ex := range exclude {
			if rel, err := filepath.Rel(ex, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				inside = true
			}
		}
		if !inside {
			kept = append(kept, f)
		}
	}
	sort.Strings(kept)
	return kept, nil
}

// manifest is the list of files the last sync to one node's mirror sent,
// kept in the local state dir: a file on it that is gone now was deleted
// locally and must be deleted there. rsync's --delete cannot tell (with
// --files-from it only prunes the directories it recurses into), and
// ignored files in the mirror, the node's warm build outputs, must never
// be deleted.
type manifest string

func manifestPath(stateRoot, dest, dir string) manifest {
	h := sha256.Sum256([]byte(dest + "\x00" + dir))
	return manifest(filepath.Join(stateRoot, "remote", "manifests", hex.EncodeToString(h[:12])))
}

func (m manifest) read() []string {
	b, err := os.ReadFile(string(m))
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range strings.Split(string(b), "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (m manifest) write(files []string) error {
	if err := os.MkdirAll(filepath.Dir(string(m)), 0o700); err != nil {
		return err
	}
	tmp := string(m) + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, []byte(strings.Join(files, "\x00")), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, string(m))
}

// syncList is what rsync is told to send: every source file now, plus the
// files of the last sync that no longer exist here, which
// --delete-missing-args deletes on the node.
func syncList(ws string, now, last []string) []string {
	have := make(map[string]bool, len(now))
	for _, f := range now {
		have[f] = true
	}
	list := append([]string{}, now...)
	for _, f := range last {
		if have[f] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(f))); os.IsNotExist(err) {
			list = append(list, f)
		}
	}
	return list
}

var bytesSent = regexp.MustCompile(`Total bytes sent: ([0-9,.]+)`)

// rsyncMirror sends list (workspace-relative) from ws to dir on dest over
// rsh. -a keeps modes, times and links; -r makes the listed .git directory
// recurse, and --delete prunes only inside it (the directories --files-from
// names implicitly are never pruned, so ignored files elsewhere stay);
// --delete-missing-args deletes what the list names and ws lacks.
func rsyncMirror(ctx context.Context, rsh, ws, dest, dir string, list []string) (engine.NodeSync, error) {
	start := time.Now()
	args := []string{"-a", "-r", "--from0", "--files-from=-", "--delete-missing-args", "--delete", "--stats",
		"-e", rsh, "--", ws + "/", dest + ":" + dir + "/"}
	cmd := fsutil.CommandContext(ctx, "rsync", args...)
	cmd.Stdin = strings.NewReader(strings.Join(list, "\x00"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	s := engine.NodeSync{Node: dest, MS: time.Since(start).Milliseconds()}
	if err != nil {
		return s, fmt.Errorf("rsync %s to %s:%s: %v: %s", ws, dest, dir, err, lastLines(stderr.String(), 5))
	}
	if m := bytesSent.FindStringSubmatch(stdout.String()); m != nil {
		s.Bytes, _ = strconv.ParseInt(strings.NewReplacer(",", "", ".", "").Replace(m[1]), 10, 64)
	}
	return s, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}
