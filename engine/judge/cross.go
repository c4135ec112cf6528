package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// The cross phase (docs/report.md, "Cross-examination"): the tests candidates
// propose cross-examine the candidates. Each proposed test runs on the
// checkout (a test that fails there and passes on its own candidate is a
// reproduction), on its own candidate, and on every other candidate that
// passed its judged run; among the candidates that pass the judge, one that
// fails another's reproduction ranks below one that fails none (Agentless's
// and CodeMonkeys' selection by reproduction tests, S*'s distinguishing runs).
//
// It is cheap by construction: one sandbox job per target (the checkout,
// each candidate that passed, each proposer) and group of proposals, each
// job holding the target's code with the group's judge files over it and
// running only the proposed tests where the runner can select them
// (cross_select.go). Proposals go in one group unless they would disturb
// each other: the same test file written differently, runner configuration
// (a conftest.py applies to every test), one Go package (its test files
// build together: one that does not compile fails them all). Jobs are
// scheduled in the run's own -j slots as soon as their target's judged run
// ended, so the phase fills the slots the judged runs leave idle.
//
// Each job is one more sandbox run, as hostile as any: it changes nothing
// but this report's cross fields and the ranking inside the first tier.
// Proposals that share a group run in one process: a test file that, on
// import, changes what the target's code does could sway the others' tests
// in that job (the judged verdict is not affected). Runner configuration
// is what does this openly, and it always runs alone.

// crossProposal is one candidate's proposed tests and the judge files that
// hold them.
type crossProposal struct {
	name    string
	split   judgeSplit
	tests   []proposedTest
	isolate bool // its judge part configures the runner: it runs in a group of its own
}

// crossOutcome: what one test did in one job.
type crossOutcome int

const (
	crossUnknown crossOutcome = iota
	crossPass
	crossFail
)

// codeKey names what a target's jobs lay over the checkout: candidates
// with the same code (agents converge on one fix more often than not; a
// candidate that changed only tests has the checkout's code) share their
// cross jobs and outcomes, as Agentless groups candidates by their
// normalized patch.
func codeKey(code Hypothesis) string {
	h := sha256.New()
	w := code.WithCommon()
	for _, f := range w.Files {
		fmt.Fprintf(h, "f %q %o %d\n", f.Path, f.Mode, len(f.Content))
		h.Write(f.Content)
	}
	for _, d := range w.Deletes {
		fmt.Fprintf(h, "d %q\n", d)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type crossPhase struct {
	cfg    *Config
	jd     *judge
	mods   *goModules
	props  []*crossProposal
	byName map[string]*crossProposal
	groups [][]*crossProposal
	splits map[string]judgeSplit
	base   Hypothesis // the checkout target: no code, the common part
	cwd    string
	// keys: each hypothesis's codeKey, baseKey the checkout target's;
	// claimed: the key/group jobs already started.
	keys    map[string]string
	baseKey string
	claimed map[string]bool
	// checkoutOnly[gi]: every proposer of group gi has the checkout's
	// code (it changed only tests, as a candidate weakening a test does).
	// Its tests then run on the same code and test files on the checkout
	// as on their proposers, so none can fail on the one and pass on the
	// other: none reproduces, and only a reproduction is asked of the
	// other targets (finish, weighCross). The group runs on the checkout
	// alone (its proposers' own outcomes, for the judged-run note).
	checkoutOnly []bool

	mu sync.Mutex
	// out[codeKey][proposer][test] and passed[codeKey]: the names the
	// target's jobs saw passing (for the judged-run note).
	out    map[string]map[string]map[string]crossOutcome
	passed map[string]map[string]bool
	// sig[codeKey][proposer+"\x00"+test]: where the test failed there.
	sig  map[string]map[string]string
	jobs int
	// longest: the longest judged run so far (crossTimeout).
	longest time.Duration
	wg      sync.WaitGroup
}

// newCrossPhase plans the phase, or returns nil when no candidate proposes
// a test it can find.
func newCrossPhase(cfg *Config, jd *judge, splits map[string]judgeSplit, orig map[string]FileState, hyps []Hypothesis) *crossPhase {
	if cfg.NoCross || cfg.NewParser == nil {
		return nil
	}
	cp := &crossPhase{cfg: cfg, jd: jd, mods: newGoModules(cfg.Workspace), byName: map[string]*crossProposal{}, splits: splits,
		cwd: cfg.Subdir, out: map[string]map[string]map[string]crossOutcome{}, passed: map[string]map[string]bool{}, sig: map[string]map[string]string{}}
	for _, h := range hyps {
		s := splits[h.Name]
		tests := proposedTests(s.files, orig)
		if len(tests) == 0 {
			continue
		}
		p := &crossProposal{name: h.Name, split: s, tests: tests}
		for _, q := range s.paths {
			if runnerConfigs[path.Base(q)] || hasConfigPrefix(path.Base(q)) || jd.common[q] {
				p.isolate = true
			}
		}
		cp.props = append(cp.props, p)
		cp.byName[h.Name] = p
		if cp.base.Name == "" || h.IsBaseline() {
			cp.base = Hypothesis{Name: h.Name, Common: splits[h.Name].code.Common, CommonDeletes: splits[h.Name].code.CommonDeletes}
		}
	}
	if len(cp.props) == 0 {
		return nil
	}
	for _, h := range hyps {
		if h.IsBaseline() {
			cp.base = Hypothesis{Name: h.Name, Common: h.Common, CommonDeletes: h.CommonDeletes}
			break
		}
	}
	if cp.base.Name == "" || !isBaselineName(hyps, cp.base.Name) {
		// No baseline hypothesis: the checkout target runs under a name of
		// its own, with the common part every hypothesis shares.
		s := splits[hyps[0].Name]
		cp.base = Hypothesis{Name: "checkout", Common: s.code.Common, CommonDeletes: s.code.CommonDeletes}
	}
	cp.groups = groupProposals(cp.props, cp.mods)
	cp.keys, cp.claimed = map[string]string{}, map[string]bool{}
	for _, h := range hyps {
		cp.keys[h.Name] = codeKey(splits[h.Name].code)
	}
	cp.baseKey = codeKey(cp.base)
	cp.checkoutOnly = make([]bool, len(cp.groups))
	for gi, g := range cp.groups {
		cp.checkoutOnly[gi] = true
		for _, p := range g {
			if cp.keys[p.name] != cp.baseKey {
				cp.checkoutOnly[gi] = false
			}
		}
	}
	return cp
}

func isBaselineName(hyps []Hypothesis, name string) bool {
	for _, h := range hyps {
		if h.Name == name {
			return h.IsBaseline()
		}
	}
	return false
}

// groupProposals puts proposals that cannot disturb each other together,
// in spec order, first fit.
func groupProposals(props []*crossProposal, mods *goModules) [][]*crossProposal {
	var groups [][]*crossProposal
	conflict := func(a, b *crossProposal) bool {
		if a.isolate || b.isolate {
			return true
		}
		for _, p := range a.split.paths {
			for _, q := range b.split.paths {
				if p == q || strings.HasPrefix(p, q+"/") || strings.HasPrefix(q, p+"/") {
					return true
				}
				if strings.HasSuffix(p, "_test.go") && strings.HasSuffix(q, "_test.go") && path.Dir(p) == path.Dir(q) {
					return true
				}
			}
		}
		return false
	}
	for _, p := range props {
		placed := false
		for gi, g := range groups {
			ok := true
			for _, q := range g {
				if conflict(p, q) {
					ok = false
					break
				}
			}
			if ok {
				groups[gi] = append(g, p)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []*crossProposal{p})
		}
	}
	return groups
}

// afterJudged is called when a hypothesis's judged run ended: its cross
// jobs are started (they wait for a slot) when it passed, or when it
// proposed tests (its own run decides whether they reproduce).
func (cp *crossPhase) afterJudged(ctx context.Context, r *result, sem chan struct{}, now func() time.Time) {
	cp.judgedTook(time.Duration(r.DurationMS) * time.Millisecond)
	_, proposer := cp.byName[r.Name]
	if r.Status != StatusPassed && !proposer {
		return
	}
	code := cp.splits[r.Name].code
	for gi, g := range cp.groups {
		if r.Status != StatusPassed && !inGroup(g, r.Name) {
			continue // a failed proposer runs only its own tests
		}
		if cp.checkoutOnly[gi] && cp.keys[r.Name] != cp.baseKey {
			continue // nothing in it reproduces (checkoutOnly)
		}
		if cp.claim(cp.keys[r.Name], gi) {
			cp.start(ctx, cp.keys[r.Name], r.Name, code, gi, g, sem, now)
		}
	}
}

// claim reports whether the job of this code and group is still to start
// (and marks it started).
func (cp *crossPhase) claim(key string, gi int) bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	k := fmt.Sprintf("%s/%d", key, gi)
	if cp.claimed[k] {
		return false
	}
	cp.claimed[k] = true
	return true
}

// startBaseline starts the checkout target's jobs.
func (cp *crossPhase) startBaseline(ctx context.Context, sem chan struct{}, now func() time.Time) {
	for gi, g := range cp.groups {
		if cp.claim(cp.baseKey, gi) {
			cp.start(ctx, cp.baseKey, cp.base.Name, cp.base, gi, g, sem, now)
		}
	}
}

func inGroup(g []*crossProposal, name string) bool {
	for _, p := range g {
		if p.name == name {
			return true
		}
	}
	return false
}

func (cp *crossPhase) start(ctx context.Context, key, label string, code Hypothesis, gi int, g []*crossProposal, sem chan struct{}, now func() time.Time) {
	cp.wg.Add(1)
	go func() {
		defer cp.wg.Done()
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-sem }()
		if ctx.Err() != nil || cp.cfg.jobs.Exhausted() != nil {
			return
		}
		cp.run(ctx, key, label, code, gi, g, now)
	}()
}

// wait returns when every started job has ended.
func (cp *crossPhase) wait() { cp.wg.Wait() }

// run runs one job: the target's code, the group's judge files over it,
// the group's tests selected where the runner allows.
func (cp *crossPhase) run(ctx context.Context, key, label string, code Hypothesis, gi int, g []*crossProposal, now func() time.Time) {
	if cp.runJob(ctx, key, label, code, gi, g, now) || len(g) < 2 || ctx.Err() != nil {
		return
	}
	// The job did not finish (a proposal's test hung or crashed the
	// runner) or left tests without an outcome: one proposal must not
	// cost the others theirs, so each runs alone on this target.
	for _, p := range g {
		if ctx.Err() != nil || cp.cfg.jobs.Exhausted() != nil {
			return
		}
		cp.runJob(ctx, key, label, code, gi, []*crossProposal{p}, now)
	}
}

// crossTimeout bounds a cross job: the run's timeout, and at most three
// times the longest judged run so far (a minute at least): a job runs a
// few of the tests a judged run ran, so a proposal whose test hangs costs
// that, not the whole timeout of every target.
func (cp *crossPhase) crossTimeout() time.Duration {
	cp.mu.Lock()
	longest := cp.longest
	cp.mu.Unlock()
	t := max(minCrossTimeout, 3*longest)
	if cp.cfg.Timeout > 0 && cp.cfg.Timeout < t {
		t = cp.cfg.Timeout
	}
	return t
}

// minCrossTimeout is crossTimeout's floor (tests lower it).
var minCrossTimeout = time.Minute

// judgedTook records a judged run's duration for crossTimeout.
func (cp *crossPhase) judgedTook(d time.Duration) {
	cp.mu.Lock()
	cp.longest = max(cp.longest, d)
	cp.mu.Unlock()
}

// runJob runs one job and reports whether every test of the group got an
// outcome.
func (cp *crossPhase) runJob(ctx context.Context, key, label string, code Hypothesis, gi int, g []*crossProposal, now func() time.Time) bool {
	cfg := cp.cfg
	var tests []proposedTest
	from := make([]string, 0, len(g))
	for _, p := range g {
		tests = append(tests, p.tests...)
		from = append(from, p.name)
	}
	cmd, _ := selectTests(cfg.Command, tests, cfg.Subdir)
	if cmd == nil {
		return true // none of the group's tests is the runner's language
	}
	cp.mu.Lock()
	cp.jobs++
	n := cp.jobs
	cp.mu.Unlock()
	cfg.jobs.Emit(0, Event{Kind: KindCrossStarted, Hyp: label, From: from, Command: cmd})

	var logPath string
	w := &crossOutput{parser: cfg.NewParser(cmd), sigs: newFailSigs()}
	if cfg.LogDir != "" {
		logPath = filepath.Join(cfg.LogDir, label, fmt.Sprintf("cross.%d.log", n))
		if os.MkdirAll(filepath.Dir(logPath), 0o700) == nil {
			w.log, _ = cfg.jobs.OpenLog(logPath)
		}
	}
	hctx, cancel := context.WithTimeout(ctx, cp.crossTimeout())
	defer cancel()
	job := Job{Hyp: overlayJudge(code, g), Command: cmd, Output: w}
	if cfg.JUnit != "" {
		job.Collect = []string{path.Join(cfg.Subdir, cfg.JUnit)}
	}
	start := now()
	o, err := cfg.jobs.Run(hctx, job)
	if w.log != nil {
		w.log.Close()
	}
	summary := w.parser.Final()
	if err == nil && cfg.ParseJUnit != nil && len(job.Collect) > 0 {
		if b, ok := o.Collected[job.Collect[0]]; ok {
			if s, jerr := cfg.ParseJUnit(b); jerr == nil && s != nil {
				summary = s
			}
		}
	}
	ev := Event{Kind: KindCrossFinished, Hyp: label, From: from, Tests: toTests(summary)}
	if summary != nil {
		ev.Tests.Unit = summary.Unit
	}
	done := err == nil && hctx.Err() == nil
	if !done {
		msg := fmt.Sprintf("did not finish in %s", cp.crossTimeout())
		if err != nil {
			msg = err.Error()
		}
		ev.Text = msg
	} else {
		ev.Text = fmt.Sprintf("exit %d in %.1fs", o.ExitCode, now().Sub(start).Seconds())
		if logPath != "" {
			ev.Text += ", output: " + logPath
		}
	}
	complete := done && summary != nil
	if done && summary != nil {
		failed, passed := set(summary.FailedTests), set(summary.PassedTests)
		inferPass := len(summary.PassedTests) == 0 && summary.Passed > 0
		cp.mu.Lock()
		if cp.out[key] == nil {
			cp.out[key] = map[string]map[string]crossOutcome{}
			cp.passed[key] = map[string]bool{}
		}
		for name := range passed {
			cp.passed[key][name] = true
		}
		for _, p := range g {
			m := cp.out[key][p.name]
			if m == nil {
				m = map[string]crossOutcome{}
				cp.out[key][p.name] = m
			}
			for _, t := range p.tests {
				o := outcomeOf(t, failed, passed, inferPass, cp.mods)
				if o == crossUnknown && t.lang == langOfRunner(cmd) {
					complete = false
				}
				if o != crossUnknown || m[t.String()] == crossUnknown {
					m[t.String()] = o
				}
				if o == crossFail {
					if cp.sig[key] == nil {
						cp.sig[key] = map[string]string{}
					}
					cp.sig[key][p.name+"\x00"+t.String()] = w.sigs.of(t)
				}
			}
		}
		cp.mu.Unlock()
	}
	cfg.jobs.Emit(0, ev)
	return complete
}

// langOfRunner is the test language the command's runner runs, "" when
// the command does not name one.
func langOfRunner(cmd []string) string {
	switch _, r := runnerAt(cmd); r {
	case "pytest":
		return "py"
	case "go":
		return "go"
	case "vitest", "jest":
		return "js"
	}
	return ""
}

// outcomeOf reads one proposed test's outcome from a job's named results.
func outcomeOf(t proposedTest, failed, passed map[string]bool, inferPass bool, mods *goModules) crossOutcome {
	for name := range failed {
		if t.matches(name, mods) || t.unitFailed(name, mods) {
			return crossFail
		}
	}
	for name := range passed {
		if t.matches(name, mods) {
			return crossPass
		}
	}
	if inferPass {
		// A runner that names only failures (pytest -q through a wrapper,
		// jest's default reporter) ran tests and did not name this one.
		return crossPass
	}
	return crossUnknown
}

// overlayJudge lays a group's judge files over a target's code.
func overlayJudge(code Hypothesis, g []*crossProposal) Hypothesis {
	h := code.WithCommon()
	files := map[string]File{}
	dels := map[string]bool{}
	for _, f := range h.Files {
		files[f.Path] = f
	}
	for _, d := range h.Deletes {
		dels[d] = true
	}
	for _, p := range g {
		for _, f := range p.split.files {
			files[f.Path] = f
			delete(dels, f.Path)
		}
		for _, d := range p.split.deletes {
			dels[d] = true
			for q := range files {
				if q == d || strings.HasPrefix(q, d+"/") {
					delete(files, q)
				}
			}
		}
	}
	out := Hypothesis{Name: h.Name}
	for _, f := range files {
		out.Files = append(out.Files, f)
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	out.Deletes = sortedKeys(dels)
	return out
}

// finish fills proposed_tests (with reproduces), cross and the judged-run
// notes from what the jobs saw.
func (cp *crossPhase) finish(results []*result) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	repro := map[string][]proposedTest{} // proposer -> its reproductions
	for _, p := range cp.props {
		r := resultNamed(results, p.name)
		if r == nil {
			continue
		}
		r.ProposedTests = []ProposedTest{}
		for _, t := range p.tests {
			pt := ProposedTest{Path: t.path, Test: t.name}
			b, own := cp.out[cp.baseKey][p.name][t.String()], cp.out[cp.keys[p.name]][p.name][t.String()]
			if b != crossUnknown && own != crossUnknown {
				v := b == crossFail && own == crossPass
				pt.Reproduces = &v
				if v {
					repro[p.name] = append(repro[p.name], t)
				}
			}
			r.ProposedTests = append(r.ProposedTests, pt)
		}
	}
	for _, r := range results {
		if r.Status != StatusPassed {
			continue
		}
		c := &Cross{Passed: []CrossRef{}, Failed: []CrossRef{}}
		for _, p := range cp.props {
			if p.name == r.Name {
				continue
			}
			for _, t := range repro[p.name] {
				ref := CrossRef{From: p.name, Test: t.String()}
				switch cp.out[cp.keys[r.Name]][p.name][t.String()] {
				case crossPass:
					c.Passed = append(c.Passed, ref)
				case crossFail:
					c.Failed = append(c.Failed, ref)
				}
			}
		}
		r.Cross = c
	}
	weighCross(results, func(target, proposer, test string) crossOutcome {
		return cp.out[cp.keys[target]][proposer][test]
	}, func(target, proposer, test string) (string, string) {
		k := proposer + "\x00" + test
		return cp.sig[cp.keys[target]][k], cp.sig[cp.baseKey][k]
	})
}

// ownPassed is what passed when the proposer's own judge part lay over its
// code.
func (cp *crossPhase) ownPassed(name string) map[string]bool {
	if cp == nil {
		return nil
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.passed[cp.keys[name]]
}

func resultNamed(results []*result, name string) *result {
	for _, r := range results {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// crossOutput is a cross job's output: its log and the test parser, no
// output events (the job's counts are in cross_finished).
type crossOutput struct {
	mu     sync.Mutex
	log    io.WriteCloser
	parser TestParser
	sigs   *failSigs // where each failing test failed (cross_sig.go)
}

func (w *crossOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.log != nil {
		w.log.Write(p)
	}
	if w.parser != nil {
		_, _ = w.parser.Write(p)
	}
	if w.sigs != nil {
		w.sigs.Write(p)
	}
	return len(p), nil
}

// crossFailedFrom is how many candidates' reproductions r fails (the rank
// key inside the first tier).
func crossFailedFrom(r *Result) int {
	if r.Cross == nil {
		return 0
	}
	from := map[string]bool{}
	for _, f := range r.Cross.Failed {
		from[f.From] = true
	}
	return len(from)
}
