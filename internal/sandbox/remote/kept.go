package remote

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// keptFor is how long a node keeps what --keep left there: the node's
// records are its own (this machine's `shadow gc` cannot reach them), so
// the node side removes, when a later run starts there, the kept runs
// older than this; the same age `shadow gc` prunes run records at.
const keptFor = 30 * 24 * time.Hour

// keptRoot is where a node keeps what --keep left: inside its state dir,
// which the node's sandboxes mask from every command.
func keptRoot(store snap.Store) string {
	return filepath.Join(store.Root, "remote", "kept")
}

// keptDir is where the job keyed RUN/HYP keeps what its command wrote.
// The key comes from the local side: each part must be one plain name.
func keptDir(root, key string) (string, error) {
	run, hyp, ok := strings.Cut(key, "/")
	for _, p := range []string{run, hyp} {
		if !ok || p == "" || p == "." || p == ".." || strings.ContainsAny(p, "/\\\x00") {
			return "", fmt.Errorf("node: --keep: bad key %q", key)
		}
	}
	return filepath.Join(root, run, hyp), nil
}

// pruneKept removes the kept runs under root last changed before age.
func pruneKept(root string, age time.Duration) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > age {
			_ = os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// isolationRefused refuses, on the node, the isolation a job asks for
// that the node's sandbox cannot give, as a local run refuses it before it
// starts, from the same table (engine.CapabilitiesOf): in place there is
// no namespace, so --net isolated and --tmp private would be silently
// dropped; copy mode gives each job a private TMPDIR.
func isolationRefused(mode engine.Mode, wj *wireJob) error {
	flag := engine.CapabilitiesOf(mode).Refuses(engine.Needs{NetIsolated: wj.Net == "isolated", PrivateTmp: wj.Tmp == "private"})
	if flag == "" {
		return nil
	}
	return fmt.Errorf("%s needs overlay mode, and this node's sandbox is %s (`shadow probe` there says why)", flag, mode)
}
