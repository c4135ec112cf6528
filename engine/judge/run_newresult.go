package judge

import "fmt"

func newResult(h Hypothesis, orig map[string]FileState, log string) *result {
	r := &result{Result: &Result{Name: h.Name, Status: StatusQueued, Files: []string{}, Log: log, EditsTests: []string{}, TiesWith: []string{}}}
	var diff []byte
	for _, f := range h.Files {
		o := orig[f.Path]
		d, n := UnifiedDiff(f.Path, o.Content, o.Exists, f.Content, true)
		diff = append(diff, d...)
		r.ChangedLines += n
		r.Files = append(r.Files, f.Path)
	}
	for _, p := range h.Deletes {
		o := orig[p]
		if o.Exists && !o.Dir {
			d, n := UnifiedDiff(p, o.Content, true, nil, false)
			diff = append(diff, d...)
			r.ChangedLines += n
		}
		r.Deleted = append(r.Deleted, p)
	}
	r.Diff = capDiff(diff)
	return r
}

// maxReportDiff bounds the diff a result carries: it is copied into the
// hyp_finished and run_finished events and report.json, so a huge edit
// would be recorded several times over. `shadow show RUN/HYP` makes the
// whole diff again from the recorded files.
const maxReportDiff = 1 << 20

func capDiff(d []byte) string {
	if len(d) <= maxReportDiff {
		return string(d)
	}
	cut := d[:maxReportDiff]
	if i := lastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i+1]
	}
	return string(cut) + fmt.Sprintf("[shadow: the diff is %s; the report keeps its first %s, `shadow show RUN/HYP` prints it whole]\n", FormatSize(int64(len(d))), FormatSize(maxReportDiff))
}

func lastIndexByte(p []byte, c byte) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == c {
			return i
		}
	}
	return -1
}
