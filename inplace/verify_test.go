//go:build unix

package inplace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/snap"
)

// plant writes a journal into state the way a hostile command that can
// write the state dir would: a manifest and blobs, with a MAC made under
// key (nil: no key known, a MAC of random bytes).
func plant(t *testing.T, state string, j *Journal, blobs map[string]string, key []byte) string {
	t.Helper()
	dir := JournalDir(state)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, c := range blobs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	j.dir = dir
	j.key = key
	if key == nil {
		j.key = []byte("not the state dir's key, a guess")
	}
	b, err := j.seal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// forgedJournal restores "PLANTED" into rel: its "wrote" state is what
// the checkout holds now (an attacker can read that), so a replay that
// trusted it would write.
func forgedJournal(ws, rel, current string) *Journal {
	return &Journal{Schema: schema, ID: "0123456789ab", Workspace: ws, Hyp: "x", PID: 1, Started: time.Now(),
		CommandStarted: true, Created: []string{}, Parents: []DirStamp{},
		Entries: []Entry{{Path: rel,
			Orig:  Node{Kind: "file", Mode: 0o644, Blob: "blob-1", SHA256: sum("PLANTED\n"), Size: 8},
			Wrote: Node{Kind: "file", Mode: 0o644, SHA256: sum(current), Size: int64(len(current))}}}}
}

func wantRefused(t *testing.T, state, ws string, before string, outside ...string) {
	t.Helper()
	for _, wsArg := range []string{ws, ""} { // the next run, and shadow gc
		r, err := Recover(state, wsArg)
		var fe *ForgedError
		if !errors.As(err, &fe) {
			t.Fatalf("Recover(%q) = %+v, %v; want a ForgedError", wsArg, r, err)
		}
		if !strings.Contains(err.Error(), JournalDir(state)) || !strings.Contains(err.Error(), "Nothing was restored") {
			t.Fatalf("message does not name the journal or say nothing was done: %v", err)
		}
		if r.Journal != nil || len(r.Restored) > 0 {
			t.Fatalf("acted on a forged journal: %+v", r)
		}
	}
	if got := snapshot(t, ws, true); got != before {
		t.Fatalf("the checkout changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	for _, p := range outside {
		if _, err := os.Lstat(p); err == nil {
			t.Fatalf("%s was written outside the workspace", p)
		}
	}
	if !HasJournal(state) {
		t.Fatal("the refused journal was removed: it is kept for the user to look at")
	}
}

// A hypothesis that could write the state dir plants a journal; without
// the key its MAC cannot verify, so the next run and gc refuse it
// whether it writes into the checkout or, through "..", outside it.
func TestForgedJournalWithoutKeyIsRefused(t *testing.T) {
	for _, rel := range []string{"v.txt", "../outside.txt"} {
		t.Run(rel, func(t *testing.T) {
			ws, state := fixture(t)
			if _, err := snap.LoadKey(state, true); err != nil { // shadow ran here before
				t.Fatal(err)
			}
			before := snapshot(t, ws, true)
			outside := filepath.Join(filepath.Dir(ws), "outside.txt")
			plant(t, state, forgedJournal(ws, rel, "bad\n"), map[string]string{"blob-1": "PLANTED\n"}, nil)
			wantRefused(t, state, ws, before, outside)
			if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "bad\n" {
				t.Fatalf("v.txt = %q", b)
			}
		})
	}
}

// Even with a valid MAC (a key that leaked, or a bug in shadow's own
// writing), a journal is checked as if an attacker wrote it: every path
// must stay inside the workspace, every blob must be there with its
// recorded bytes, the workspace must be the state dir's own.
func TestJournalChecksHoldEvenWithTheKey(t *testing.T) {
	cases := []struct {
		name string
		edit func(j *Journal, ws string, blobs map[string]string)
	}{
		{"dotdot", func(j *Journal, ws string, _ map[string]string) { j.Entries[0].Path = "../outside.txt" }},
		{"dotdot-inside", func(j *Journal, ws string, _ map[string]string) { j.Entries[0].Path = "tree/../../outside.txt" }},
		{"absolute", func(j *Journal, ws string, _ map[string]string) {
			j.Entries[0].Path = filepath.Join(filepath.Dir(ws), "outside.txt")
		}},
		{"into-git", func(j *Journal, ws string, _ map[string]string) { j.Entries[0].Path = ".git/hooks/pre-commit" }},
		{"created-dotdot", func(j *Journal, ws string, _ map[string]string) { j.Created = []string{"../made"} }},
		{"symlinked-parent", func(j *Journal, ws string, _ map[string]string) {
			if err := os.Symlink(filepath.Dir(ws), filepath.Join(ws, "up")); err != nil {
				panic(err)
			}
			j.Entries[0].Path = "up/outside.txt"
			j.Entries[0].Wrote = Node{Kind: "file", SHA256: sum("x"), Size: 1}
		}},
		{"unknown-blob", func(j *Journal, ws string, b map[string]string) { j.Entries[0].Orig.Blob = "blob-7" }},
		{"blob-name-escapes", func(j *Journal, ws string, b map[string]string) { j.Entries[0].Orig.Blob = "../../x" }},
		{"blob-bytes-differ", func(j *Journal, ws string, b map[string]string) { b["blob-1"] = "OTHER!!\n" }},
		{"trash-escapes", func(j *Journal, ws string, _ map[string]string) {
			j.Entries[0] = Entry{Path: "v.txt", Delete: true, Orig: Node{Kind: "dir", Trash: "../../..", TrashIn: "state"}, Wrote: Node{Kind: "absent"}}
		}},
		{"another-workspace", func(j *Journal, ws string, _ map[string]string) { j.Workspace = filepath.Dir(ws) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, state := fixture(t)
			key, err := snap.LoadKey(state, true)
			if err != nil {
				t.Fatal(err)
			}
			j := forgedJournal(ws, "v.txt", "bad\n")
			blobs := map[string]string{"blob-1": "PLANTED\n"}
			c.edit(j, ws, blobs)
			before := snapshot(t, ws, true)
			plant(t, state, j, blobs, key)
			for _, wsArg := range []string{ws, ""} {
				r, err := Recover(state, wsArg)
				var fe *ForgedError
				if !errors.As(err, &fe) || r.Journal != nil {
					t.Fatalf("Recover(%q) = %+v, %v; want a ForgedError", wsArg, r, err)
				}
				t.Log(err)
			}
			if got := snapshot(t, ws, true); got != before {
				t.Fatalf("the checkout changed:\n%s", got)
			}
			for _, p := range []string{filepath.Join(filepath.Dir(ws), "outside.txt"), filepath.Join(filepath.Dir(ws), "made")} {
				if _, err := os.Lstat(p); err == nil {
					t.Fatalf("%s written outside the workspace", p)
				}
			}
		})
	}
}

// The same journal, correctly signed and checked, is replayed: the
// checks above refuse what is wrong, not everything.
func TestSignedJournalIsReplayed(t *testing.T) {
	ws, state := fixture(t)
	key, _ := snap.LoadKey(state, true)
	plant(t, state, forgedJournal(ws, "v.txt", "bad\n"), map[string]string{"blob-1": "PLANTED\n"}, key)
	r, err := Recover(state, ws)
	if err != nil || len(r.Restored) != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "PLANTED\n" {
		t.Fatalf("v.txt = %q", b)
	}
}

// Files shadow did not make as this user, or that others may write, are
// not shadow's: a journal dir, manifest or key of another owner or mode.
func TestJournalOwnershipAndModesAreChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		root bool
		edit func(state string)
	}{
		{"manifest-group-writable", false, func(state string) { os.Chmod(filepath.Join(JournalDir(state), manifest), 0o664) }},
		{"dir-world-writable", false, func(state string) { os.Chmod(JournalDir(state), 0o777) }},
		{"key-readable", false, func(state string) { os.Chmod(filepath.Join(state, snap.KeyName), 0o644) }},
		{"manifest-other-owner", true, func(state string) { os.Chown(filepath.Join(JournalDir(state), manifest), 1001, 1001) }},
		{"blob-other-owner", true, func(state string) { os.Chown(filepath.Join(JournalDir(state), "blob-1"), 1001, 1001) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.root && os.Geteuid() != 0 {
				t.Skip("changing a file's owner needs root")
			}
			ws, state := fixture(t)
			key, _ := snap.LoadKey(state, true)
			plant(t, state, forgedJournal(ws, "v.txt", "bad\n"), map[string]string{"blob-1": "PLANTED\n"}, key)
			c.edit(state)
			before := snapshot(t, ws, true)
			wantRefused(t, state, ws, before)
		})
	}
}

// A real journal written by a run that was killed still verifies and is
// replayed (TestKill9AtEachStepThenRecover covers every step); one whose
// manifest was changed afterwards by a single byte is refused.
func TestTamperedRealJournalIsRefused(t *testing.T) {
	ws, state := fixture(t)
	crashHelper(t, state, ws, fullHyp(), "during-command", "sleep 60")
	mp := filepath.Join(JournalDir(state), manifest)
	b, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	env.Journal = []byte(strings.Replace(string(env.Journal), `"v.txt"`, `"w.txt"`, 1))
	nb, _ := json.Marshal(env)
	if err := os.WriteFile(mp, nb, 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, ws, true)
	wantRefused(t, state, ws, before)
}
