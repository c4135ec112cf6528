package overlay

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// serverEnv are variables that tell a client where a server outside every
// namespace listens; such a server would run what the command asks with the
// user's full rights (tmux run-shell, a D-Bus activated unit, a docker
// container bind-mounting the checkout). They are removed from the
// command's environment, and their sockets are masked (serverSockets).
var serverEnv = []string{"TMUX", "TMUX_PANE", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST"}

// commandEnv is env without serverEnv.
func commandEnv(env []string) []string {
	out := make([]string, 0, len(env))
next:
	for _, kv := range env {
		for _, k := range serverEnv {
			if strings.HasPrefix(kv, k+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// lookupEnv is os.LookupEnv over an environment list (the last entry wins,
// as in execve).
func lookupEnv(env []string, key string) (string, bool) {
	val, ok := "", false
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			val, ok = kv[len(key)+1:], true
		}
	}
	return val, ok
}

// serverSockets are the well-known places of servers that act for the user
// outside the sandbox, plus the sockets the environment names: tmux's
// socket directory, the user's runtime dir (D-Bus session bus, systemd
// --user, pipewire, gpg-agent...), docker's socket. A path that does not
// exist is skipped by the init.
func serverSockets(env []string, uid int) []string {
	tmuxDir := "/tmp"
	if d, ok := lookupEnv(env, "TMUX_TMPDIR"); ok && d != "" {
		tmuxDir = d
	}
	out := []string{
		filepath.Join(tmuxDir, fmt.Sprintf("tmux-%d", uid)),
		fmt.Sprintf("/run/user/%d", uid),
		"/var/run/docker.sock", "/run/docker.sock",
	}
	if d, ok := lookupEnv(env, "XDG_RUNTIME_DIR"); ok && filepath.IsAbs(d) {
		out = append(out, d)
	}
	// TMUX=socket,pid,session: a server started with -S lives anywhere.
	if v, ok := lookupEnv(env, "TMUX"); ok {
		if s, _, _ := strings.Cut(v, ","); filepath.IsAbs(s) {
			out = append(out, s)
		}
	}
	if v, ok := lookupEnv(env, "DOCKER_HOST"); ok {
		if s, ok := strings.CutPrefix(v, "unix://"); ok && filepath.IsAbs(s) {
			out = append(out, s)
		}
	}
	// unix:path=/run/user/1000/bus[,guid=...]; abstract= sockets cannot be
	// masked (they live in the network namespace: --net isolated).
	if v, ok := lookupEnv(env, "DBUS_SESSION_BUS_ADDRESS"); ok {
		for _, addr := range strings.Split(v, ";") {
			for _, kv := range strings.Split(strings.TrimPrefix(addr, "unix:"), ",") {
				if s, ok := strings.CutPrefix(kv, "path="); ok && filepath.IsAbs(s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// usesSccache reports whether the build may go through sccache: a
// RUSTC_WRAPPER, CC or CXX whose program is sccache, or sccache on the
// command's PATH (cargo's config file can name it as build.rustc-wrapper,
// where no variable shows it).
func usesSccache(env []string) bool {
	path, _ := lookupEnv(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(dir, "sccache")); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	for _, k := range []string{"RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER", "CC", "CXX"} {
		v, _ := lookupEnv(env, k)
		for _, w := range strings.Fields(v) {
			if filepath.Base(w) == "sccache" {
				return true
			}
		}
	}
	return false
}

// sccacheEnv gives the job a private sccache server. sccache's client talks
// to a server on 127.0.0.1:SCCACHE_SERVER_PORT (default 4226) and starts
// one when none answers; the server compiles in its own mount namespace,
// at the absolute paths the client names. Hypotheses share the host's
// network namespace (--net host), so on the default port a server already
// running outside would compile the real checkout's files, and a server
// one hypothesis started would compile the next hypothesis's sources from
// the first one's shadow and write the objects there (the second then
// fails with "No such file or directory" on an object it just built, or
// links the first one's code). A port nobody listens on makes the client
// start its own server inside the PID namespace, which dies with it.
// It is set for every job, not only where sccache shows in PATH or
// RUSTC_WRAPPER/CC: meson, CMake (CMAKE_<LANG>_COMPILER_LAUNCHER) and
// cargo's config can name it by absolute path in a build file.
// SCCACHE_SERVER_UDS (a unix socket, possibly abstract and so reachable
// from here) is dropped for the same reason. Without a free port, a job
// whose environment shows sccache is refused; the others run without one.
func sccacheEnv(env []string) ([]string, error) {
	port, err := freePort()
	if err != nil {
		if !usesSccache(env) {
			return env, nil
		}
		return nil, fmt.Errorf("sccache is the compiler wrapper (RUSTC_WRAPPER/CC or on PATH), and each hypothesis needs a private sccache server on its own port, but no free localhost port was found: %w; unset RUSTC_WRAPPER/CC or take sccache off PATH for this run", err)
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if strings.HasPrefix(kv, "SCCACHE_SERVER_PORT=") || strings.HasPrefix(kv, "SCCACHE_SERVER_UDS=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, fmt.Sprintf("SCCACHE_SERVER_PORT=%d", port)), nil
}

// freePort asks the kernel for an unused localhost TCP port. Another
// process could take it before the private server binds it; sccache's
// client then talks to that process, which the unpredictability of an
// ephemeral port makes unlikely to be a waiting server.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// resolve returns p with symlinks resolved where it exists, else p
// cleaned: a mask must cover where the data really is.
func resolve(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
