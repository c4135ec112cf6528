package landlock

import (
	"os"
	"path/filepath"
	"strings"
)

// A sealed command may not write $HOME or /tmp, and no overlay can throw
// a write there away without a namespace, so the places builds must
// write are pointed at private directories instead: TMPDIR (and TMP,
// TEMP where set) at tmp, and the caches below at cache/NAME. Go refuses
// to build at all with a read-only GOCACHE ("open .../go-build/...:
// permission denied"), so a read-only cache with an error was no choice
// for Go. PYTHONUSERBASE and CARGO_HOME are left alone: they name what
// the command reads (user site-packages, cargo's registry), and a fresh
// one would hide it; pip's cache and others follow XDG_CACHE_HOME.
// /dev/shm stays read-only, and POSIX shared memory has no variable to
// move it: shm_open and sem_open (Python's multiprocessing locks) fail
// with EACCES.
var cacheEnv = []struct{ key, dir string }{
	{"GOCACHE", "go-build"},
	{"XDG_CACHE_HOME", "xdg"},
	{"npm_config_cache", "npm"},
}

// ScratchEnv makes the cache directories under cache and returns env
// with TMPDIR and the caches pointed at them. The cache a job gets may
// have been written by earlier jobs' commands (a copy slot's, kept
// across runs), so Go's test results are never taken from it
// (GOFLAGS=-count=1): a forged "ok" cannot make a later baseline pass.
func ScratchEnv(env []string, tmp, cache string) ([]string, error) {
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} {
		if k == "TMPDIR" || hasEnv(env, k) {
			env = setEnv(env, k, tmp)
		}
	}
	for _, c := range cacheEnv {
		d := filepath.Join(cache, c.dir)
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
		env = setEnv(env, c.key, d)
	}
	return setEnv(env, "GOFLAGS", strings.TrimSpace(getEnv(env, "GOFLAGS")+" -count=1")), nil
}

func hasEnv(env []string, k string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, k+"=") {
			return true
		}
	}
	return false
}

func getEnv(env []string, k string) string {
	v := ""
	for _, kv := range env {
		if rest, ok := strings.CutPrefix(kv, k+"="); ok {
			v = rest
		}
	}
	return v
}

// setEnv sets k in env, replacing every earlier value.
func setEnv(env []string, k, v string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}
