package mcpserver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/run"
	"github.com/shadow-dev/shadow/snap"
)

// registry holds the runs this server started (running, and the newest
// that ended, so that shadow_wait of a finished run answers from memory),
// the merged reports no record holds (shadow_merge without apply), and
// the workspace of every run the server has named, so that a
// shadow://run/ID/... URI (which names no workspace) finds its record.
type registry struct {
	mu      sync.Mutex
	runs    map[string]*liveRun
	ended   []string // ids of ended runs, oldest first
	merged  map[string]*engine.Report
	mergedN []string
	ws      map[string]string
}

// keepEnded bounds the ended runs (and merged reports) held in memory;
// older ones are read from their records.
const keepEnded = 32

func (r *registry) add(l *liveRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.runs == nil {
		r.runs, r.ws = map[string]*liveRun{}, map[string]string{}
	}
	r.runs[l.id] = l
	r.ws[l.id] = l.ws
}

// ended moves a run to the ended ones, dropping the oldest past keepEnded.
func (r *registry) endRun(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = append(r.ended, id)
	for len(r.ended) > keepEnded {
		delete(r.runs, r.ended[0])
		r.ended = r.ended[1:]
	}
}

func (r *registry) get(id string) *liveRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs[id]
}

// addMerged holds a merged report no record holds, under an id of its
// own ("merged-" and a run id's form: the shards' reports carry theirs).
func (r *registry) addMerged(rep *engine.Report) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.merged == nil {
		r.merged = map[string]*engine.Report{}
	}
	id := "merged-" + snap.NewRunID(time.Now())
	r.mergedN = append(r.mergedN, id)
	r.merged[id] = rep
	for len(r.mergedN) > keepEnded {
		delete(r.merged, r.mergedN[0])
		r.mergedN = r.mergedN[1:]
	}
	return id
}

func (r *registry) getMerged(id string) *engine.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.merged[id]
}

func (r *registry) noteWorkspace(id, ws string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ws == nil {
		r.runs, r.ws = map[string]*liveRun{}, map[string]string{}
	}
	if len(r.ws) > 4096 {
		clear(r.ws)
	}
	r.ws[id] = ws
}

func (r *registry) workspace(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ws[id]
}

// startRun runs p in the background, under the server's life rather than
// the call's (a run started with "wait": false outlives its call), and
// returns once the run has its id (its record exists) or ended without
// one. ctx (the call's) ending before then cancels the run.
func (s *Server) startRun(ctx context.Context, p *run.Plan) (*liveRun, error) {
	runCtx, cancel := context.WithCancel(s.life)
	l := newLiveRun(p.Workspace(), cancel)
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer cancel()
		rep, err := p.Run(runCtx, l.observe)
		l.finish(rep, err)
		if id := l.runID(); id != "" {
			s.runs.endRun(id)
		}
	}()
	select {
	case <-l.started:
	case <-ctx.Done():
		cancel()
		<-l.done
		return nil, ctx.Err()
	}
	if l.runID() == "" {
		<-l.done
		_, err := l.report()
		if err == nil {
			err = errors.New("the run ended before it started")
		}
		return nil, err
	}
	s.runs.add(l)
	return l, nil
}

// progressEvery is how often a call waiting on a run sends progress while
// nothing else happens (a build that prints nothing): clients end calls
// that stay silent (Claude Code's idle watchdog is reset by progress
// notifications and nothing else), and docs/agents.md promises one at
// least every 15 s.
const progressEvery = 10 * time.Second

// errWaitOver is follow's answer when the wait's bound passed first.
var errWaitOver = errors.New("the wait's bound passed")

// follow waits until l ends, ctx ends (its error) or until passes
// (errWaitOver; zero: no bound), sending req's client a progress
// notification at each step of the run and every progressEvery, when the
// call carries a progress token.
func (s *Server) follow(ctx context.Context, req *mcp.CallToolRequest, l *liveRun, until time.Time) error {
	token := req.Params.GetProgressToken()
	var bound <-chan time.Time
	if !until.IsZero() {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		bound = t.C
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var p progressValue
	for {
		wake := l.wake()
		if token != nil && req.Session != nil {
			done, total := l.finished()
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p.next(done), Total: float64(total + 1), Message: l.message()})
		}
		select {
		case <-l.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-bound:
			return errWaitOver
		case <-wake:
		case <-tick.C:
		}
	}
}

// progressValue makes the progress of one call's notifications increase
// strictly, as the MCP specification requires of them, while it stays
// within the hypotheses finished: each notification without a new
// finish adds b/(b+1) of the next step (total is hypotheses + 1, the last
// step being the ranking).
type progressValue struct {
	base, beats int
	started     bool
}

func (p *progressValue) next(done int) float64 {
	switch {
	case !p.started || done > p.base:
		p.started, p.base, p.beats = true, done, 0
	default:
		p.beats++
	}
	return float64(p.base) + float64(p.beats)/float64(p.beats+1)
}
