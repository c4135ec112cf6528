package procfs

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

func TestBootID(t *testing.T) {
	if id := BootID(); len(id) != 36 {
		t.Errorf("boot id %q", id)
	}
}

// A command name with spaces and parentheses must not shift the fields:
// the parser counts from the last ')'.
func TestReadStatOfAnAwkwardName(t *testing.T) {
	src, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	name := filepath.Join(t.TempDir(), "a) b (c d) e")
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	in.Close()
	out.Close()
	cmd := exec.Command(name, "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	st, ok := ReadStat(cmd.Process.Pid)
	if !ok || st.PGRP != cmd.Process.Pid || st.Start == 0 {
		t.Errorf("stat of %q: %+v %v (want its own group %d)", name, st, ok, cmd.Process.Pid)
	}
	self, ok := ReadStat(os.Getpid())
	if !ok || self.PGRP != syscall.Getpgrp() || self.Start == 0 || self.Start > st.Start {
		t.Errorf("own stat %+v %v, pgrp %d", self, ok, syscall.Getpgrp())
	}
	if StartTime(cmd.Process.Pid) != st.Start {
		t.Error("StartTime disagrees with ReadStat")
	}
	if _, ok := ReadStat(1 << 30); ok {
		t.Error("a PID that cannot exist has a stat")
	}
}
