package run

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/engine/judge"
)

// layTestsFrom resolves the run's tests written before the candidates
// were seen (docs/spec.md "tests_from", docs/cli.md --tests-from): given
// (the option, relative to cwd) over the spec's tests_from (relative to
// specDir), and lays them over every hypothesis. None given: hyps as they
// are and nil. A refusal is a usage error (exit 2, nothing written) that
// names the option or field, the source and the file. notices (nil: none)
// hears of a file of theirs that replaces the checkout's code.
func layTestsFrom(ctx context.Context, notices io.Writer, given, cwd string, spec *engine.Spec, specDir, ws string, lim engine.Limits, hyps []engine.Hypothesis) ([]engine.Hypothesis, *judge.TestsFrom, error) {
	field, src, dir := "--tests-from", given, cwd
	if src == "" {
		if spec.TestsFrom == "" {
			return hyps, nil, nil
		}
		field, src, dir = "tests_from", spec.TestsFrom, specDir
	}
	tf, err := judge.ResolveTestsFrom(ctx, field, src, dir, ws, lim)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if err != nil {
		return nil, nil, Usage("%v", err)
	}
	out, err := judge.WithTestsFrom(hyps, tf)
	if err != nil {
		return nil, nil, Usage("%s: %s: %v", field, tf.Source, err)
	}
	if code := judge.TestsFromCode(tf, spec.TestPaths, ws); len(code) > 0 && notices != nil {
		fmt.Fprintf(notices, "shadow: %s: %s replace(s) the checkout's %s, which no test_paths glob names: for this run they are the judge's, so a candidate's change there is its proposal, not its code\n", field, tf.Source, strings.Join(code, ", "))
	}
	return out, tf, nil
}
