package engine

import (
	"github.com/shadow-dev/shadow/engine/judge"

	"path/filepath"
	"regexp"
	"strings"
)

// A command or file the command names under /tmp or /var/tmp that "does
// not exist" in a hypothesis usually exists on the host: with --tmp
// private (overlay mode's default, docs/modes.md) each hypothesis gets a
// fresh tmpfs there, so the host's files are not in it. The reason says
// so in one more clause, with the two ways out.

var (
	tmpPath  = regexp.MustCompile(`(?:^|[\s'"(:=])(/(?:var/)?tmp/[^\s'":)]+)`)
	notFound = regexp.MustCompile(`(?i)no such file|not found|ENOENT|can't open|cannot open|does not exist`)
)

// TmpHint is the clause for a failing hypothesis whose reason or output
// names a path under /tmp or /var/tmp, outside the workspace, as missing,
// "" otherwise. tmp is the run's --tmp ("" for the sandbox's default);
// mode its sandbox mode.
func TmpHint(text, tmp, workspace string, mode Mode) string {
	private := tmp == "private" || tmp == "" && (mode == ModeOverlay || mode == ModeRemote)
	if !private {
		return ""
	}
	for _, line := range strings.Split(text, "\n") {
		if !notFound.MatchString(line) {
			continue
		}
		for _, m := range tmpPath.FindAllStringSubmatch(line, -1) {
			p := filepath.Clean(m[1])
			if workspace != "" && (p == workspace || strings.HasPrefix(p, workspace+"/")) {
				continue // the workspace is mounted in every hypothesis
			}
			return "hint: " + p + " is under " + tmpRoot(p) + ", which is private to each hypothesis (a fresh tmpfs): put it in the workspace, or pass --tmp shared"
		}
	}
	return ""
}

func tmpRoot(p string) string {
	if strings.HasPrefix(p, "/var/tmp") {
		return "/var/tmp"
	}
	return "/tmp"
}

// addTmpHint appends TmpHint's clause to r.Reason (run.go calls it after
// setReason), unless a hint is there already.
func addTmpHint(r *Result, tmp, workspace string, mode Mode) {
	if r.Reason == nil || r.Status == StatusPassed || strings.Contains(*r.Reason, "hint:") {
		return
	}
	text := *r.Reason + "\n" + r.OutputTail
	if r.Error != nil {
		text += "\n" + *r.Error
	}
	h := TmpHint(text, tmp, workspace, mode)
	if h == "" {
		return
	}
	why := *r.Reason
	if room := judge.ReasonMax - len(h) - 3; len(why) > room && room > 0 {
		cut := room
		for cut > 0 && why[cut]&0xc0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		why = why[:cut] + "…"
	}
	why += " (" + h + ")"
	r.Reason = &why
}
