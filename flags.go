package main

import (
	"flag"
	"fmt"
	"path"
	"strings"

	"github.com/shadow-dev/shadow/internal/run"
)

// runFlags are the flags of a run (DESIGN.md §1): the run service's
// options, and how the result is shown. A new run option is a field of
// run.Options and one line here.
type runFlags struct {
	opts         run.Options
	headless     bool
	json, events bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	o := &f.opts
	fs.StringVar(&o.Dir, "C", "", "workspace root")
	fs.IntVar(&o.Jobs, "j", 0, "hypotheses at once")
	fs.Var(run.TimeoutValue{D: &o.Timeout}, "timeout", "per-hypothesis timeout")
	fs.Var(&o.Mode, "mode", "auto|overlay|copy|inplace")
	fs.Var((*globList)(&o.CopySkip), "copy-skip", "copy mode: leave out of each copy (repeatable)")
	fs.BoolVar(&o.Apply, "apply", false, "write the winner into the checkout")
	fs.BoolVar(&o.Baseline, "baseline", false, "add a baseline hypothesis")
	fs.Var(&o.Net, "net", "host|isolated")
	fs.Var(&o.Tmp, "tmp", "shared|private")
	fs.BoolVar(&o.Keep, "keep", false, "keep upper dirs in the record")
	fs.BoolVar(&o.Freeze, "freeze", false, "run on a copy of the source files taken at the start")
	fs.BoolVar(&o.NoRecord, "no-record", false, "do not record the run")
	fs.Var(run.SizeValue{N: &o.MaxOutput}, "max-output", "cap of each hypothesis's stored output (default 16M)")
	fs.Var(run.SizeValue{N: &o.MaxEditSize}, "max-edit-size", "largest content of one edit (default 64M)")
	fs.IntVar(&o.Confirm, "confirm", 0, "rerun the baseline and the leading candidate N more times before naming a winner")
	fs.BoolVar(&o.AllowTestEdits, "allow-test-edits", false, "a candidate that changes tests may win")
	fs.Func("remote", "run the hypotheses on these ssh nodes: NODE[,NODE...]", func(v string) error {
		o.Remote = append(o.Remote, run.ParseRemote(v)...)
		return nil
	})
	fs.StringVar(&o.RemoteDir, "remote-dir", "", "where the nodes keep the mirror, when not at the workspace's path")
	fs.BoolVar(&f.headless, "headless", false, "never the TUI")
	fs.BoolVar(&f.json, "json", false, "JSON report on stdout")
	fs.BoolVar(&f.events, "events", false, "NDJSON events on stdout")
}

// globList is a repeatable flag (--copy-skip GLOB ...).
type globList []string

func (g *globList) String() string { return strings.Join(*g, ",") }
func (g *globList) Set(s string) error {
	if s == "" || strings.HasPrefix(s, "/") || strings.Contains(s, "..") {
		return fmt.Errorf("want a workspace-relative glob such as node_modules or build/cache, not %q", s)
	}
	if _, err := path.Match(s, ""); err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	*g = append(*g, s)
	return nil
}
