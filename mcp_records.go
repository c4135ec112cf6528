package main

// Reading recorded runs for shadow_log and shadow_show. This reads the run
// folders directly (snap.Store.WorkspaceDir(ws)/runs/<id>/{meta.json,
// report.json,events.ndjson}); it is kept to this one file so that it can
// give way to the snap package's own listing once that lands.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// recordedRun is one run folder as read back. Nothing is required: a run
// whose recorder died has no report, and its finished hypotheses come from
// its event log.
type recordedRun struct {
	ID      string
	Dir     string
	State   string // running, finished or interrupted
	Meta    *snap.Meta
	Report  *engine.Report
	Results []*engine.Result // the report's, or the event log's hyp_finished results
}

func runsDir(store snap.Store, ws string) string {
	return filepath.Join(store.WorkspaceDir(ws), "runs")
}

// recordedRunIDs lists the workspace's run ids, oldest first (ids sort by
// start time).
func recordedRunIDs(store snap.Store, ws string) ([]string, error) {
	ents, err := os.ReadDir(runsDir(store, ws))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

func readRecordedRun(store snap.Store, ws, id string) *recordedRun {
	dir := filepath.Join(runsDir(store, ws), id)
	r := &recordedRun{ID: id, Dir: dir}
	if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		var m snap.Meta
		if json.Unmarshal(b, &m) == nil {
			r.Meta = &m
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "report.json")); err == nil {
		var rep engine.Report
		if json.Unmarshal(b, &rep) == nil {
			r.Report = &rep
		}
	}
	switch {
	case r.Report != nil:
		r.State, r.Results = "finished", r.Report.Hypotheses
	case r.Meta != nil && r.Meta.PID > 0 && processExists(r.Meta.PID):
		r.State = "running"
	default:
		r.State = "interrupted"
	}
	if r.Report == nil {
		if f, err := os.Open(filepath.Join(dir, "events.ndjson")); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				var ev engine.Event
				if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Kind == engine.KindHypFinished && ev.Result != nil {
					r.Results = append(r.Results, ev.Result)
				}
			}
			f.Close()
		}
	}
	return r
}

func processExists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// findRecordedRun resolves RUN: @last, a run id, or a unique prefix of one.
func findRecordedRun(store snap.Store, ws, ref string) (string, error) {
	ids, err := recordedRunIDs(store, ws)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("ref: no recorded runs for workspace %s", ws)
	}
	if ref == "@last" {
		return ids[len(ids)-1], nil
	}
	if ref == "" || strings.ContainsAny(ref, `/\`) || strings.HasPrefix(ref, ".") {
		return "", fmt.Errorf("ref: %q is not a run id", ref)
	}
	var match []string
	for _, id := range ids {
		if id == ref {
			return id, nil
		}
		if strings.HasPrefix(id, ref) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("ref: no recorded run %q in workspace %s (see shadow_log)", ref, ws)
	case 1:
		return match[0], nil
	}
	return "", fmt.Errorf("ref: run %q is ambiguous: %d runs start with it (%s, ...)", ref, len(match), strings.Join(match[:2], ", "))
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
