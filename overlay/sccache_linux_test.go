package overlay

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// Two hypotheses that both build through sccache, named only by absolute
// path (a meson native file, cargo's build.rustc-wrapper, CMake's
// CMAKE_C_COMPILER_LAUNCHER), with no sccache on PATH and no wrapper
// variable. The hypotheses share the host's network namespace, so without a
// private SCCACHE_SERVER_PORT each client looks for a server on the default
// port: the first hypothesis's client starts one inside its namespace, and
// the second's compile then runs there, on the first's files, writing the
// object into the first's upper dir. The second sees no object: this is
// the intermittent `ar: libcalc.a.p/calc.c.o: No such file or directory`
// of the meson end-to-end test (sccache was on PATH there, which shadow
// detected only from 10:22 on; a launcher named by absolute path is still
// found only by always giving a private port).
func TestOverlaySccacheServerIsNotSharedBetweenHypotheses(t *testing.T) {
	sb := needOverlay(t)
	sccache, err := exec.LookPath("sccache")
	if err != nil {
		t.Skip("sccache is not installed")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not installed")
	}
	as, err := exec.LookPath("as")
	if err != nil {
		t.Skip("as is not installed")
	}
	// PATH holds only the assembler gcc runs: no sccache to detect.
	bin := t.TempDir()
	if err := os.Symlink(as, filepath.Join(bin, "as")); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "main.c"), []byte("int main(void){return 1;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The two commands meet in a directory outside the workspace: the
	// first keeps its server alive until the second has compiled.
	meet := t.TempDir()
	env := []string{"PATH=" + bin, "HOME=" + t.TempDir(), "SCCACHE_DIR=" + t.TempDir(), "SCCACHE_IDLE_TIMEOUT=60"}
	// sccache 0.4's client gives up on a server that takes over 10 s to
	// start (a loaded CI machine); the retry then finds it up. A retry only
	// follows a failed compile, so it cannot hide the bug: a compile routed
	// to another hypothesis's server succeeds, in the wrong shadow.
	one := sccache + " " + gcc + " -c main.c -o main.o"
	compile := "{ " + one + " || { /bin/sleep 2; " + one + "; }; }"
	wait := func(f string) string {
		return "i=0; while [ ! -e " + meet + "/" + f + " ] && [ $i -lt 600 ]; do /bin/sleep 0.1; i=$((i+1)); done; "
	}
	scripts := map[string]string{
		"first":  compile + "; /bin/touch " + meet + "/first; " + wait("second") + sccache + " --stop-server >/dev/null 2>&1; [ -f main.o ] && echo first-has-object",
		"second": wait("first") + compile + "; /bin/touch " + meet + "/second; [ -f main.o ] && echo second-has-object",
	}
	outs := map[string]*bytes.Buffer{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for name, script := range scripts {
		var out bytes.Buffer
		outs[name] = &out
		hyp := engine.Hypothesis{Name: name, Files: []engine.File{{Path: "main.c", Content: []byte("int main(void){return 0;}\n"), Mode: 0o644}}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Tmp shared: the test meets its two hypotheses, and finds as and
			// sccache's dir, in the host's /tmp (the default is a fresh tmpfs).
			_, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: hyp, Output: &out, Env: env, Tmp: "shared", Command: []string{"/bin/sh", "-c", script}})
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, out := range outs {
		if !strings.Contains(out.String(), name+"-has-object") {
			t.Errorf("%s compiled through sccache but its object is not in its shadow (another hypothesis's server compiled it):\n%s", name, out.String())
		}
	}
}
