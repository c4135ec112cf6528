package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffContext is the number of unchanged lines around each change, as in
// `diff -u` and `git diff`.
const diffContext = 3

// UnifiedDiff returns a unified diff of one file with 3 lines of context,
// headers `--- a/PATH` / `+++ b/PATH`, `/dev/null` for created (old absent)
// or deleted (new absent) files, `\ No newline at end of file` markers where
// needed, and the count of inserted+deleted lines. Identical content gives ""
// and 0. The output is valid input for `git apply`, `patch -p1` and
// patch.Apply (internal/patch).
func UnifiedDiff(path string, old []byte, oldExists bool, new []byte, newExists bool) (diff string, changed int) {
	if !oldExists && !newExists {
		return "", 0
	}
	if oldExists == newExists && string(old) == string(new) {
		return "", 0
	}
	if !oldExists {
		old = nil
	}
	if !newExists {
		new = nil
	}
	ops := lineOps(string(old), string(new))

	var b strings.Builder
	name := quotePath(path)
	if len(old) == 0 && len(new) == 0 {
		// An empty file created or deleted has no hunk; git apply only
		// takes that with a git header saying so.
		if !oldExists {
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n", name, name)
		} else {
			fmt.Fprintf(&b, "diff --git a/%s b/%s\ndeleted file mode 100644\n", name, name)
		}
	}
	if oldExists {
		fmt.Fprintf(&b, "--- a/%s\n", name)
	} else {
		b.WriteString("--- /dev/null\n")
	}
	if newExists {
		fmt.Fprintf(&b, "+++ b/%s\n", name)
	} else {
		b.WriteString("+++ /dev/null\n")
	}
	for _, h := range groupHunks(ops) {
		changed += writeHunk(&b, ops[h[0]:h[1]])
	}
	return b.String(), changed
}

// quotePath writes a path as git does: C-quoted when it holds a quote,
// backslash or control character, and followed by a tab when it holds a
// space so that a name's end is unambiguous for patch(1).
func quotePath(p string) string {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			return strconv.Quote(p)
		}
	}
	if strings.Contains(p, " ") {
		return p + "\t"
	}
	return p
}

// lineOp is one line of the edit script with its 0-based positions in old
// and new.
type lineOp struct {
	op         byte // ' ', '-', '+'
	text       string
	oldN, newN int // line index in old/new of this line, or of the next one
}

// lineOps diffs old and new line by line (diffmatchpatch line mode) and
// returns the edit script, deletions before insertions in each change.
func lineOps(old, new string) []lineOp {
	dmp := diffmatchpatch.New()
	var diffs []diffmatchpatch.Diff
	if countLines(old)+countLines(new) < 1_000_000 {
		a, b, lines := dmp.DiffLinesToChars(old, new)
		diffs = dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	} else {
		// diffmatchpatch encodes each distinct line as one rune and
		// panics past ~1.1M of them: replace the whole file instead.
		diffs = []diffmatchpatch.Diff{{Type: diffmatchpatch.DiffDelete, Text: old}, {Type: diffmatchpatch.DiffInsert, Text: new}}
	}
	// Positions are given when a change block is flushed, after its
	// deletions were put before its insertions.
	var ops []lineOp
	var dels, ins []string
	oldN, newN := 0, 0
	flush := func() {
		for _, l := range dels {
			ops = append(ops, lineOp{'-', l, oldN, newN})
			oldN++
		}
		for _, l := range ins {
			ops = append(ops, lineOp{'+', l, oldN, newN})
			newN++
		}
		dels, ins = dels[:0], ins[:0]
	}
	for _, d := range diffs {
		for _, l := range splitLines(d.Text) {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				flush()
				ops = append(ops, lineOp{' ', l, oldN, newN})
				oldN++
				newN++
			case diffmatchpatch.DiffDelete:
				dels = append(dels, l)
			case diffmatchpatch.DiffInsert:
				ins = append(ins, l)
			}
		}
	}
	flush()
	return ops
}

func countLines(s string) int { return strings.Count(s, "\n") + 1 }

// groupHunks returns [start, end) ranges of ops, each a hunk: changes with
// up to diffContext lines around them, merged when the unchanged run
// between two changes is at most 2*diffContext (GNU diff's rule).
func groupHunks(ops []lineOp) [][2]int {
	var hunks [][2]int
	for i := 0; i < len(ops); {
		if ops[i].op == ' ' {
			i++
			continue
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(ops) {
			// Skip the change, then look at the unchanged run after it.
			for end < len(ops) && ops[end].op != ' ' {
				end++
			}
			run := end
			for run < len(ops) && ops[run].op == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = run
		}
		hunks = append(hunks, [2]int{start, end})
		i = end
	}
	return hunks
}

// writeHunk writes one hunk and returns its count of changed lines.
func writeHunk(b *strings.Builder, ops []lineOp) int {
	oldCount, newCount, changed := 0, 0, 0
	for _, o := range ops {
		if o.op != '+' {
			oldCount++
		}
		if o.op != '-' {
			newCount++
		}
		if o.op != ' ' {
			changed++
		}
	}
	// GNU numbering: the first line of each side, or for an empty side the
	// line before the hunk (0 at the start of the file).
	oldStart, newStart := ops[0].oldN+1, ops[0].newN+1
	if oldCount == 0 {
		oldStart--
	}
	if newCount == 0 {
		newStart--
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldCount), hunkRange(newStart, newCount))
	for _, o := range ops {
		b.WriteByte(o.op)
		b.WriteString(o.text)
		if !strings.HasSuffix(o.text, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
	return changed
}

// hunkRange prints "start,count", omitting a count of 1 as diff does.
func hunkRange(start, count int) string {
	if count == 1 {
		return strconv.Itoa(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// splitLines splits s into lines that keep their "\n"; the last one may lack it.
func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// AddedLines is the 1-based numbers of the lines of new that old does not
// have, by the same line diff UnifiedDiff writes.
func AddedLines(old, new []byte) map[int]bool {
	out := map[int]bool{}
	for _, op := range lineOps(string(old), string(new)) {
		if op.op == '+' {
			out[op.newN+1] = true
		}
	}
	return out
}
