package warm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// Format is the layout version of a layer; a layer of another format is
// never stacked (and is replaced by the next baseline).
const Format = 1

// Dir is where the layers of every workspace live under a state root.
func Dir(stateRoot string) string { return filepath.Join(stateRoot, "warm") }

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// keyDir is one workspace's directory under root: its base name for
// people, a hash of its absolute path for uniqueness.
func keyDir(root, ws string) string {
	sum := sha256.Sum256([]byte(ws))
	name := unsafeChars.ReplaceAllString(filepath.Base(ws), "_")
	return filepath.Join(root, name+"-"+hex.EncodeToString(sum[:6]))
}

// Files in a workspace's directory.
const (
	metaName   = "meta.json"
	updateLock = "update.lock" // exclusive while a generation is built or gc removes
	usedName   = "used"        // its mtime is the last run that stacked the layer (gc's LRU)
	genPrefix  = "gen-"
	tmpPrefix  = "tmp-"
	keepPrefix = "harvest-"
)

func genName(n int) string            { return fmt.Sprintf("%s%06d", genPrefix, n) }
func genLock(kd string, n int) string { return filepath.Join(kd, genName(n)+".lock") }

// genNumber parses a generation directory's name.
func genNumber(name string) (int, bool) {
	if !strings.HasPrefix(name, genPrefix) || strings.HasSuffix(name, ".lock") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, genPrefix))
	return n, err == nil && n > 0
}

// Meta describes a workspace's current generation.
type Meta struct {
	Format     int    `json:"format"`
	Workspace  string `json:"workspace"`
	Generation int    `json:"generation"`
	Bytes      int64  `json:"bytes"`
	Files      int    `json:"files"`
	// Roots are the layer's topmost taken paths (workspace-relative,
	// '/'-separated, a trailing '/' for a directory), each git-ignored
	// when the layer was built; checked again before every use.
	Roots   []string  `json:"roots"`
	BuiltAt time.Time `json:"built_at"`
	// Run is the run whose baseline built this generation.
	Run string `json:"run,omitempty"`
	// Tools (home layers) are the commands (argv[0]'s base name) whose
	// baselines fed the layer: a run of another finds it cold for its
	// toolchain (its baseline runs first).
	Tools []string `json:"tools,omitempty"`
	// Updating: the generation is being changed in place (no run held
	// it); one left so by a crash is never stacked.
	Updating bool `json:"updating,omitempty"`
}

func readMeta(kd string) (*Meta, error) {
	b, err := os.ReadFile(filepath.Join(kd, metaName))
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(kd, metaName), err)
	}
	return &m, nil
}

func writeMeta(kd string, m *Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(kd, metaName), append(b, '\n'), 0o600, true)
}
