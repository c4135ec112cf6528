package cli

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/shadow-dev/shadow/internal/run"
)

// RefusalDoc is what a refused command asked for --json prints on stdout
// (docs/cli.md): a program reading stdout gets an answer it can parse
// rather than nothing, with the exit code it is about to see. The line
// for people still goes to stderr.
type RefusalDoc struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
	Reason   string `json:"reason,omitempty"`
	Fix      string `json:"fix,omitempty"`
}

// writeJSONRefusal prints err as a RefusalDoc on out when the command
// line asked for --json (before any --) and the command ended refused:
// not with an *ExitError, whose command has printed its own document (a
// report with no winner), and not with success.
func writeJSONRefusal(args []string, err error, out io.Writer) {
	if err == nil || !wantsJSON(args) {
		return
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return
	}
	doc := RefusalDoc{Error: err.Error(), ExitCode: ExitCode(err, nil)}
	var ae *ArgError
	var re *run.Error
	switch {
	case errors.As(err, &ae):
		doc.Error = ae.Msg
	case errors.As(err, &re):
		doc.Error, doc.Reason, doc.Fix = re.Msg, re.Reason, re.Fix
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	_ = enc.Encode(doc)
}

func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}
