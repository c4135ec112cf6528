package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func writeLog(t testing.TB, max int64, chunks ...[]byte) (string, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "output.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	c := newCappedLog(f, max)
	for _, b := range chunks {
		c.Write(b)
	}
	err = c.close()
	b, _ := os.ReadFile(p)
	return string(b), err
}

func TestCappedLogKeepsASmallOutputWhole(t *testing.T) {
	var want bytes.Buffer
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	b := want.Bytes()
	got, err := writeLog(t, int64(len(b)), b[:100], b[100:7000], b[7000:])
	if err != nil || got != want.String() {
		t.Fatalf("an output of exactly max bytes was not stored whole (%v)", err)
	}
}

var markerRe = regexp.MustCompile(`\[shadow: (\d+) bytes of output dropped here`)

// A flood far over the cap keeps the head, every error section (even
// those the flood buried in its middle) and the tail, and says how many
// bytes were dropped; kept + dropped is the whole output.
func TestCappedLogKeepsHeadSectionsAndTail(t *testing.T) {
	const max = 256 << 10
	var chunks [][]byte
	total := 0
	add := func(s string) { chunks = append(chunks, []byte(s)); total += len(s) }
	add("HEAD first line\n")
	for i := 0; i < 40000; i++ {
		add(fmt.Sprintf("warning: noise line %d of a long flood\n", i))
		if i == 15000 || i == 30000 {
			add(fmt.Sprintf("--- FAIL: TestBuried%d (0.00s)\n    want 1, got 2\n", i))
		}
	}
	add("TAIL last line\n")
	got, err := writeLog(t, max, chunks...)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(got)) > max+4<<10 {
		t.Fatalf("stored %d bytes, cap %d", len(got), max)
	}
	for _, want := range []string{"HEAD first line\n", "--- FAIL: TestBuried15000", "--- FAIL: TestBuried30000", "    want 1, got 2\n", "TAIL last line\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q", want)
		}
	}
	if !strings.HasPrefix(got, "HEAD") || !strings.HasSuffix(got, "TAIL last line\n") {
		t.Error("head or tail not at their place")
	}
	dropped := 0
	for _, m := range markerRe.FindAllStringSubmatch(got, -1) {
		n, _ := strconv.Atoi(m[1])
		dropped += n
	}
	kept := len(markerRe.ReplaceAllString(got, ""))
	markers := len(markerRe.FindAllString(got, -1))
	if markers < 3 || dropped == 0 {
		t.Fatalf("%d markers, %d bytes dropped", markers, dropped)
	}
	// Each marker line adds its text around the match; count the original
	// bytes: total = dropped + bytes of output kept.
	stripped := regexp.MustCompile(`\n\[shadow: \d+ bytes of output dropped here \(--max-output [^)]*\)\]\n`).ReplaceAllString(got, "")
	if len(stripped)+dropped != total {
		t.Fatalf("kept %d + dropped %d != total %d (%d with markers)", len(stripped), dropped, total, kept)
	}
}

// A write error (here: /dev/full, as a full filesystem) is kept and
// reported, not swallowed.
func TestCappedLogReportsWriteErrors(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	c := newCappedLog(f, 0)
	c.Write([]byte("some output\n"))
	if err := c.close(); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("close = %v, want ENOSPC", err)
	}
	o := &hypOutput{logErr: c.err, bytes: 12}
	if w := o.logWarning("/state/output.log", nil); !strings.Contains(w, "/state/output.log") || !strings.Contains(w, "12 bytes") {
		t.Fatalf("warning %q", w)
	}
}

// BenchmarkCappedLog500MB feeds 500 MB of output through a default-sized
// log and prints what is stored and the heap it took.
func BenchmarkCappedLog500MB(b *testing.B) {
	line := []byte(strings.Repeat("x", 99) + "\n")
	chunk := bytes.Repeat(line, 320) // 32000 bytes, one pipe read's worth
	for i := 0; i < b.N; i++ {
		p := filepath.Join(b.TempDir(), "output.log")
		f, _ := os.Create(p)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := newCappedLog(f, 0)
		var peak uint64
		for n := 0; n < 500_000_000/len(chunk); n++ {
			c.Write(chunk)
			if n%2000 == 0 {
				runtime.ReadMemStats(&after)
				peak = max(peak, after.HeapInuse)
			}
		}
		if err := c.close(); err != nil {
			b.Fatal(err)
		}
		fi, _ := os.Stat(p)
		b.ReportMetric(float64(fi.Size())/(1<<20), "MiB-stored")
		b.ReportMetric(float64(peak-before.HeapInuse)/(1<<20), "MiB-heap")
	}
}
