package overlay

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// The private /tmp, /var/tmp and /dev/shm of all the hypotheses that run
// at once add up to no more than what shadow may use: before, each was a
// quarter of RAM, three per hypothesis, so jobs hypotheses could pin
// 0.75 × jobs × RAM, in no process's RSS.
func TestTmpfsCapsShareWhatShadowMayUse(t *testing.T) {
	sb := needOverlay(t)
	const jobs = 3
	if err := sb.Limit(Limits{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	o, out, err := runDefault(sb, workspace(t), "df", `df -B1 --output=size /tmp /var/tmp /dev/shm | tail -n +2`)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("df: exit %d, %v:\n%s", o.ExitCode, err, out)
	}
	var sum int64
	for _, f := range strings.Fields(out) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("df said %q:\n%s", f, out)
		}
		sum += n
	}
	if len(strings.Fields(out)) != 3 {
		t.Fatalf("want the sizes of 3 tmpfs:\n%s", out)
	}
	if limit := machineMemory() / jobs; sum > limit+3*4096 {
		t.Errorf("one hypothesis's three tmpfs hold %d MiB, more than its share %d MiB of the %d MiB shadow may use with %d jobs", sum>>20, limit>>20, machineMemory()>>20, jobs)
	}
}

const tmpfsChildEnv = "SHADOW_TMPFS_FILLER_CHILD"

// A hypothesis fills its /tmp while a sibling holds 200 MB of its own,
// shadow running in a cgroup of 640 MB (a container's): the sibling must
// survive. Before, the filler's /tmp was capped at a quarter of the
// machine's RAM, past the container's memory, and the container's OOM
// killer picked the sibling, the largest process (tmpfs pages are in no
// process's RSS). The test moves a child of its own into a fresh memory
// cgroup and runs both there: made at the hierarchy's root as root; as
// another user, inside the cgroup directory SHADOW_TEST_MEMCG names, which
// root made and gave to that user (.ci/run does, for its unprivileged
// pass). cgroup v1 lets the owner of a cgroup directory make child cgroups
// in it, owned by their maker, and move its own processes into them
// (cgroup-v1/cgroups.rst 2.2: the permission on cgroup.procs and the
// writer's uid matching the process's). v2 also asks for write access to
// the common ancestor's cgroup.procs (cgroup-v2.rst "Delegation
// Containment"), which a user outside a delegated subtree lacks.
func TestTmpfsFillerLeavesSiblingInSmallCgroup(t *testing.T) {
	if os.Getenv(tmpfsChildEnv) == "1" {
		tmpfsFillerChild(t)
		return
	}
	needOverlay(t)
	root := "/sys/fs/cgroup/memory"
	v1 := true
	if _, err := os.Stat(filepath.Join(root, "memory.limit_in_bytes")); err != nil {
		root, v1 = "/sys/fs/cgroup", false
		if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
			t.Fatalf("no memory cgroup hierarchy to put shadow in: %v", err)
		}
	}
	parent := root
	if os.Geteuid() != 0 {
		parent = os.Getenv("SHADOW_TEST_MEMCG")
		switch {
		case parent == "":
			t.Skip("as a user, needs a memory cgroup directory of its own to make the test's cgroup in: SHADOW_TEST_MEMCG (.ci/run makes one; the unprivileged cap alone is TestTmpfsCapsShareWhatShadowMayUse)")
		case !v1:
			t.Skip("as a user on cgroup v2, moving a process into a delegated cgroup needs its current cgroup inside the delegation too (cgroup-v2.rst \"Delegation Containment\"); the unprivileged cap alone is TestTmpfsCapsShareWhatShadowMayUse")
		}
	}
	dir := filepath.Join(parent, fmt.Sprintf("shadow-tmpfs-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(dir)
	limit, file := "memory.limit_in_bytes", "cgroup.procs"
	if !v1 {
		limit = "memory.max"
	}
	if err := os.WriteFile(filepath.Join(dir, limit), []byte(strconv.Itoa(640<<20)), 0); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	c := exec.Command("sh", "-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(dir, file), exe, "-test.run=^TestTmpfsFillerLeavesSiblingInSmallCgroup$", "-test.v", "-test.count=1")
	c.Env = append(os.Environ(), tmpfsChildEnv+"=1")
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SIBLING-ALIVE") {
		t.Errorf("the sibling did not survive the filler (%v):\n%s", err, out)
	}
}

func tmpfsFillerChild(t *testing.T) {
	sb := needOverlay(t)
	if err := sb.Limit(Limits{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	var wg sync.WaitGroup
	var sibO engine.Outcome
	var sibOut string
	var sibErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		sibO, sibOut, sibErr = runDefault(sb, ws, "sibling", `python3 -c '
import time
b = bytearray(200 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
print("HOLDING", flush=True)
time.sleep(4)
print("SIBLING-ALIVE")
'`)
	}()
	o, out, err := runDefault(sb, ws, "filler", `sleep 1; head -c 600M /dev/zero > /tmp/fill; echo "FILL-EXIT $?"; sleep 1`)
	wg.Wait()
	t.Logf("filler: exit %d %s, %v: %s", o.ExitCode, o.Signal, err, out)
	if sibErr != nil || sibO.ExitCode != 0 {
		t.Errorf("sibling: exit %d %s, %v", sibO.ExitCode, sibO.Signal, sibErr)
	}
	fmt.Println(strings.TrimSpace(sibOut))
}
