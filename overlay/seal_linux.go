package overlay

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shadow-dev/shadow/engine"
)

// The parent's side of the seal (overlay/nsinit/seal_linux.go has the
// init's): outside the workspace the command sees everything read-only
// except the directories listed here, each an overlay of its own whose
// upper dir lies beside the workspace's and goes with it.

// sealDir is one directory outside the workspace a hypothesis may write.
type sealDir struct {
	path string // resolved; lowerdir and mount point
	kind string // "home", "writable" or "cache"
	// caches are the home layer's caches inside it that have no overlay
	// of their own (home_linux.go): each is one entry of outside writes.
	caches []string
}

// cacheEnv are variables naming a cache a build writes; where one lies
// outside $HOME (GOCACHE=/var/cache/go, a CI runner's CARGO_HOME) it is
// overlaid too, so builds keep reading it warm and do not fail on a
// read-only cache. Inside $HOME the home overlay already covers it.
var cacheEnv = []string{
	"GOCACHE", "GOMODCACHE", "GOPATH", "CARGO_HOME", "RUSTUP_HOME", "CARGO_TARGET_DIR",
	"npm_config_cache", "NPM_CONFIG_CACHE", "YARN_CACHE_FOLDER", "PNPM_HOME", "BUN_INSTALL",
	"XDG_CACHE_HOME", "PIP_CACHE_DIR", "UV_CACHE_DIR", "POETRY_CACHE_DIR",
	"SCCACHE_DIR", "CCACHE_DIR", "GRADLE_USER_HOME", "DENO_DIR",
}

// Writable adds --writable paths (absolute): each is overlaid per
// hypothesis, its writes reported in `outside` and thrown away. The run
// service refuses paths inside the workspace or holding shadow's
// directories before anything runs (exit 2). It returns s for chaining.
func (s *Sandbox) Writable(paths ...string) *Sandbox {
	s.writable = append(s.writable, paths...)
	return s
}

// sealDirs lists what the job's command may write outside the workspace:
// $HOME (as the job's environment names it), the --writable paths and the
// caches outside $HOME, shallowest first, none inside another (an overlay
// covers what lies below it), none inside the workspace, a git dir
// shadowed on its own or a mask. The masks are mounted after the
// overlays, inside them, so a dir holding one (as $HOME holds the state
// dir) still hides it; a cache holding one is left read-only all the
// same.
func (s *Sandbox) sealDirs(job engine.Job, gitDirs, masks []string) []sealDir {
	var cands []sealDir
	if h, ok := lookupEnv(job.Env, "HOME"); ok && filepath.IsAbs(h) {
		cands = append(cands, sealDir{path: resolve(h), kind: "home"})
	}
	for _, w := range s.writable {
		cands = append(cands, sealDir{path: resolve(w), kind: "writable"})
	}
	for _, k := range cacheEnv {
		if v, ok := lookupEnv(job.Env, k); ok && filepath.IsAbs(v) {
			cands = append(cands, sealDir{path: resolve(v), kind: "cache"})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i].path) < len(cands[j].path) })
	var out []sealDir
next:
	for _, c := range cands {
		if c.path == "/" || within(c.path, job.Workspace) || within(job.Workspace, c.path) && c.kind != "home" && c.kind != "writable" {
			continue
		}
		if fi, err := os.Stat(c.path); err != nil || !fi.IsDir() {
			continue
		}
		for _, g := range gitDirs {
			if within(c.path, g) {
				continue next
			}
		}
		for _, m := range masks {
			if within(c.path, m) || c.kind == "cache" && within(m, c.path) {
				continue next
			}
		}
		for _, o := range out {
			if within(c.path, o.path) {
				continue next
			}
		}
		out = append(out, c)
	}
	return out
}

// maxOutside bounds the entries one hypothesis's outside writes list
// before the engine classifies and caps them for the report.
const maxOutside = 10000

// cacheRoots, relative to $HOME, are summed into one entry each: a build
// writes thousands of files there, none of which says anything alone.
var cacheRoots = []string{".cache", ".config/go/telemetry", "go/pkg/mod", ".cargo/registry", ".cargo/git", ".npm", ".rustup", ".m2/repository", ".gradle/caches", ".pnpm-store", ".yarn/berry/cache"}

// outsideWrites lists what the command wrote into each sealed dir, from
// its upper dir: a file or symlink is "created" when the real directory
// has nothing at that path, else "changed"; a whiteout is "deleted"; a
// directory counts only when it is new and empty. A cache ($HOME's usual
// caches, or a cache dir overlaid as such) is one "changed" entry with the
// bytes written there. Shadow reads the upper dir the command filled: the
// walk lstats, never follows a link, never opens a file.
func outsideWrites(dirs []sealDir, uppers []string) []engine.OutsideWrite {
	var out []engine.OutsideWrite
	more, moreBytes := 0, int64(0)
	add := func(w engine.OutsideWrite) {
		if len(out) < maxOutside {
			out = append(out, w)
			return
		}
		more++
		moreBytes += w.Bytes
	}
	for i, d := range dirs {
		upper := uppers[i]
		sums := map[string]int64{}
		var order []string
		_ = filepath.WalkDir(upper, func(p string, de fs.DirEntry, err error) error {
			if err != nil || p == upper {
				return nil
			}
			rel, _ := filepath.Rel(upper, p)
			real := filepath.Join(d.path, rel)
			fi, err := de.Info()
			if err != nil {
				return nil
			}
			if root := cacheRoot(d, rel); root != "" {
				if _, ok := sums[root]; !ok {
					order = append(order, root)
					sums[root] = 0
				}
				if fi.Mode().IsRegular() {
					sums[root] += fi.Size()
				}
				return nil
			}
			_, lerr := os.Lstat(real)
			kind := "changed"
			if lerr != nil {
				kind = "created"
			}
			switch {
			case de.IsDir():
				if lerr == nil || isOpaque(p) {
					return nil
				}
				if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
					add(engine.OutsideWrite{Path: real, Kind: "created"})
				}
			case isWhiteout(fi):
				add(engine.OutsideWrite{Path: real, Kind: "deleted"})
			default:
				var n int64
				if fi.Mode().IsRegular() {
					n = fi.Size()
				}
				add(engine.OutsideWrite{Path: real, Bytes: n, Kind: kind})
			}
			return nil
		})
		for _, root := range order {
			add(engine.OutsideWrite{Path: root, Bytes: sums[root], Kind: "changed"})
		}
	}
	if more > 0 {
		out = append(out, engine.OutsideWrite{Path: fmt.Sprintf("(%d more not listed)", more), Bytes: moreBytes, Kind: "more"})
	}
	return out
}

// cacheRoot is the cache rel (relative to d) lies in, as an absolute
// path, or "".
func cacheRoot(d sealDir, rel string) string {
	if d.kind == "cache" {
		return d.path
	}
	if d.kind != "home" {
		return ""
	}
	r := filepath.ToSlash(rel)
	for _, c := range cacheRoots {
		if r == c {
			return "" // the directory itself, copied up: counted with its files
		}
		if strings.HasPrefix(r, c+"/") {
			// One level below .cache (.cache/go-build, .cache/pip): each
			// tool's cache on its own line.
			if c == ".cache" {
				first, _, _ := strings.Cut(strings.TrimPrefix(r, c+"/"), "/")
				return filepath.Join(d.path, c, first)
			}
			return filepath.Join(d.path, c)
		}
	}
	for _, c := range d.caches {
		if p := filepath.Join(d.path, rel); p != c && within(p, c) {
			return c
		}
	}
	return ""
}
