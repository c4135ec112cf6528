package main

// Reading recorded runs for shadow_log and shadow_show, over the snap
// package's listing (snap.Store.RunIDs, FindRun, FindHyp, ReadRun).

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// findRecord resolves ref (RUN, or RUN/HYP when hyp) to a run read back.
// A RUN/HYP whose hypothesis finished but whose files were not recorded is
// still found, as `shadow show` does.
func findRecord(store snap.Store, ws, ref string, hyp bool) (*snap.RunInfo, error) {
	if !hyp {
		id, err := store.FindRun(ws, ref)
		if err != nil {
			return nil, err
		}
		return snap.ReadRun(store.RunDir(ws, id)), nil
	}
	run, _, err := store.FindHyp(ws, ref)
	if err != nil {
		runRef, name, _ := bytes.Cut([]byte(ref), []byte("/"))
		if string(runRef) != "@last" {
			if id, rerr := store.FindRun(ws, string(runRef)); rerr == nil {
				if ri := snap.ReadRun(store.RunDir(ws, id)); resultNamed(ri, string(name)) != nil {
					return ri, nil
				}
			}
		}
		return nil, err
	}
	return snap.ReadRun(store.RunDir(ws, run)), nil
}

func resultNamed(r *snap.RunInfo, name string) *engine.Result {
	for _, h := range r.Results {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// lastLines returns the last n lines of a file (n > 0), reading at most
// its last 4 MiB, and whether lines before them were left out.
func lastLines(path string, n int) (string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	const window = 4 << 20
	off := max(fi.Size()-window, 0)
	b := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	cut := off > 0
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 {
		return "", cut, nil
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > n {
		lines, cut = lines[len(lines)-n:], true
	}
	return string(bytes.Join(lines, []byte("\n"))) + "\n", cut, nil
}
