package downloads

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// Sums are the hashes a checkout's lockfiles name.
type Sums struct {
	// mod: "path version" (the zip's h1 hash) and "path version/go.mod"
	// (the go.mod file's), as go.sum lists them.
	mod map[string]string
	// npm: the hex sha512 digests of the tarballs package-lock.json names.
	npm map[string]bool
}

// Empty: no lockfile named anything shadow can check.
func (s *Sums) Empty() bool { return s == nil || len(s.mod) == 0 && len(s.npm) == 0 }

// Read reads the lockfiles of the checkout ws: those in its root, in each
// directory from there down to subdir (where the command runs), in the
// directories near the root (lockDirs), and in every module a go.work in
// those directories uses. A module's go.sum
// names every module its build may fetch, the main module's and its
// dependencies' (go.dev/ref/mod#go-sum-files); go.work.sum the rest of a
// workspace's (go.dev/ref/mod#workspaces).
func Read(ws, subdir string) *Sums {
	s := &Sums{mod: map[string]string{}, npm: map[string]bool{}}
	dirs := []string{ws}
	cur := ws
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(subdir)), "/") {
		if part == "" || part == "." || part == ".." {
			continue
		}
		cur = filepath.Join(cur, part)
		dirs = append(dirs, cur)
	}
	seen := map[string]bool{}
	var read func(dir string, work bool)
	read = func(dir string, work bool) {
		if seen[dir] || !within(dir, ws) {
			return
		}
		seen[dir] = true
		s.goSum(filepath.Join(dir, "go.sum"))
		s.goSum(filepath.Join(dir, "go.work.sum"))
		s.npmLock(filepath.Join(dir, "package-lock.json"))
		s.npmLock(filepath.Join(dir, "npm-shrinkwrap.json"))
		if !work {
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, "go.work"))
		if err != nil {
			return
		}
		wf, err := modfile.ParseWork("go.work", data, nil)
		if err != nil {
			return
		}
		for _, u := range wf.Use {
			read(filepath.Join(dir, filepath.FromSlash(u.Path)), false)
		}
	}
	for _, d := range dirs {
		read(d, true)
	}
	for _, d := range lockDirs(ws) {
		read(d, true)
	}
	return s
}

// The directories below the root searched for lockfiles: a project's
// nested packages (a JS fixture's own package-lock.json, a Go module in a
// subdirectory) are commonly a level or two down. Bounded, as the walk
// runs once per run before any job: not below maxLockDepth, at most
// maxLockDirs directories, never into what holds installed or fetched
// code (node_modules, vendor) or hidden directories (.git).
const (
	maxLockDepth = 3
	maxLockDirs  = 4096
)

func lockDirs(ws string) []string {
	var out []string
	n := 0
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		des, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, de := range des {
			name := de.Name()
			if !de.IsDir() || strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || n >= maxLockDirs {
				continue
			}
			n++
			sub := filepath.Join(dir, name)
			out = append(out, sub)
			if depth+1 < maxLockDepth {
				walk(sub, depth+1)
			}
		}
	}
	walk(ws, 0)
	return out
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// goSum adds a go.sum's h1 lines ("path version h1:…" and "path
// version/go.mod h1:…"); h1 is the only hash go.sum has ever held
// (go.dev/ref/mod#go-sum-files).
func (s *Sums) goSum(file string) {
	f, err := os.Open(file)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 || !strings.HasPrefix(fs[2], "h1:") {
			continue
		}
		s.mod[fs[0]+" "+fs[1]] = fs[2]
	}
}

// npmLock adds the sha512 integrities of a package-lock.json or
// npm-shrinkwrap.json: lockfileVersion 2 and 3 list every package under
// "packages", version 1 (and 2, for older npm) nests them under
// "dependencies" (docs.npmjs.com, package-lock.json). An integrity is a
// Subresource Integrity string, possibly several hashes apart by spaces
// (w3.org/TR/SRI); only sha512 is kept: sha1, which old lockfiles hold,
// is no hash to trust another's bytes by.
func (s *Sums) npmLock(file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	type dep struct {
		Integrity    string          `json:"integrity"`
		Dependencies json.RawMessage `json:"dependencies"`
	}
	var lock struct {
		Packages     map[string]dep  `json:"packages"`
		Dependencies json.RawMessage `json:"dependencies"`
	}
	if json.Unmarshal(data, &lock) != nil {
		return
	}
	for _, p := range lock.Packages {
		s.integrity(p.Integrity)
	}
	var deps func(raw json.RawMessage, depth int)
	deps = func(raw json.RawMessage, depth int) {
		var m map[string]dep
		if depth > 64 || len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
			return
		}
		for _, d := range m {
			s.integrity(d.Integrity)
			deps(d.Dependencies, depth+1)
		}
	}
	deps(lock.Dependencies, 0)
}

func (s *Sums) integrity(sri string) {
	for _, h := range strings.Fields(sri) {
		b64, ok := strings.CutPrefix(h, "sha512-")
		if !ok {
			continue
		}
		if i := strings.IndexByte(b64, '?'); i >= 0 {
			b64 = b64[:i] // SRI options
		}
		sum, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(sum) != 64 {
			continue
		}
		s.npm[hex.EncodeToString(sum)] = true
	}
}
