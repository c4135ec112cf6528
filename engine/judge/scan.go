package judge

import (
	"fmt"
	"strings"

	"github.com/shadow-dev/shadow/engine/report"
	"github.com/shadow-dev/shadow/internal/scan"
)

// The judge-aware code scan (docs/report.md, "Suspicious"): the code part of a
// candidate (its own files that are not the judge's) is scanned for what only
// a cheat needs: sniffing the runner, patching it, exiting 0 before it
// reports, printing its result lines, an equality that always holds. A hit
// makes the candidate suspicious: it ranks below every clean pass and never
// wins without --allow-suspicious (rank.go). Only the lines the candidate
// added are scanned, so a checkout that already holds such code does not make
// every candidate suspicious, and what the checkout's version of a file
// already asks (internal/scan's introspection classes) is not counted
// against a candidate that rewrites it.

// maxScanHits bounds how many hits the reason names.
const maxScanHits = 3

// scanCode returns why h's code looks like a cheat, or "".
func scanCode(jd *judge, h Hypothesis, orig map[string]FileState) string {
	return scanReason(scanHits(jd, h, orig))
}

// scanHits are the scan's hits on h's code part (the contrast reads them
// too: contrast.go).
func scanHits(jd *judge, h Hypothesis, orig map[string]FileState) []scan.Hit {
	var hits []scan.Hit
	for _, f := range h.Files {
		if jd.is(f.Path) || !scan.Wants(f.Path) {
			continue
		}
		o := orig[f.Path]
		var was []byte
		if o.Exists && !o.Dir {
			was = o.Content
		}
		hits = append(hits, scan.Scan(scan.File{Path: f.Path, Content: f.Content, Added: addedLines(o, f.Content), Orig: was})...)
	}
	return hits
}

// scanReason is the suspicious reason hits give, "" for none.
func scanReason(hits []scan.Hit) string {
	if len(hits) == 0 {
		return ""
	}
	parts := make([]string, 0, maxScanHits)
	for i, h := range hits {
		if i == maxScanHits {
			parts = append(parts, fmt.Sprintf("and %d more", len(hits)-maxScanHits))
			break
		}
		parts = append(parts, h.String())
	}
	return "code " + strings.Join(parts, "; ")
}

// addedLines is the 1-based numbers of the lines of new that o's content
// does not have (nil, every line, for a new file).
func addedLines(o FileState, new []byte) map[int]bool {
	if !o.Exists || o.Dir {
		return nil
	}
	return report.AddedLines(o.Content, new)
}

// AddSuspicious appends why to r's suspicious reasons (the seal may have
// set one for a write to a persistence path).
func AddSuspicious(r *Result, why string) {
	if why == "" {
		return
	}
	if r.Suspicious != nil && *r.Suspicious != "" {
		why = *r.Suspicious + "; " + why
	}
	r.Suspicious = &why
}
