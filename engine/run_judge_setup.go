package engine

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/shadow-dev/shadow/engine/judge"
)

// setUpJudge sets the judge up before any candidate runs (engine/judge,
// Setup): it gets the run's plain data and the jobs it may run, never
// the sandbox itself.
func (rs *runState) setUpJudge(ctx context.Context) {
	rs.jr = judge.Setup(ctx, judgeConfig(rs.cfg, rs.jobs, rs.now), &judgeJobs{rs: rs}, rs.orig, rs.rep)
}

// judgeConfig is what the judge knows of cfg.
func judgeConfig(cfg *Config, jobs int, now func() time.Time) judge.Config {
	jc := judge.Config{
		Workspace: cfg.Workspace, Subdir: cfg.Subdir, Command: cfg.Command, Hyps: cfg.Hyps,
		Jobs: jobs, Timeout: cfg.Timeout, JUnit: cfg.JUnit, LogDir: cfg.LogDir,
		TestPaths: cfg.TestPaths, AllowTestEdits: cfg.AllowTestEdits, NoCross: cfg.NoCross,
		AllowSuspicious: cfg.AllowSuspicious, Confirm: cfg.Confirm, TestsFrom: cfg.TestsFrom,
		ParseJUnit: cfg.ParseJUnit, Shard: cfg.Shard, ShardHyps: cfg.ShardHyps, Now: now,
	}
	if np := cfg.NewParser; np != nil {
		jc.NewParser = func(command []string) judge.TestParser {
			if p := np(command); p != nil {
				return p
			}
			return nil
		}
	}
	return jc
}

// judgeJobs is the core's side of judge.Jobs: the judge's extra jobs run
// in the run's sandbox, with its environment, and its events go down the
// run's stream.
type judgeJobs struct{ rs *runState }

func (j *judgeJobs) Run(ctx context.Context, job judge.Job) (judge.Outcome, error) {
	cfg := j.rs.cfg
	o, err := cfg.Sandbox.Run(ctx, Job{Workspace: cfg.Workspace, Subdir: cfg.Subdir, Hyp: job.Hyp, Command: job.Command,
		Env: cfg.Env, Net: cfg.Net, Tmp: cfg.Tmp, Output: job.Output, Collect: job.Collect})
	return judge.Outcome{ExitCode: o.ExitCode, Collected: o.Collected}, err
}

func (j *judgeJobs) Rerun(ctx context.Context, h Hypothesis, n int, r *Result, observe func(judge.Observation)) {
	runOne(ctx, j.rs.cfg, j.rs.em.forAttempt(n), j.rs.jr, h, r, j.rs.now, observe)
}

func (j *judgeJobs) Emit(n int, ev Event) { j.rs.em.forAttempt(n).emit(ev) }

func (j *judgeJobs) OpenLog(path string) (io.WriteCloser, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return closer{newCappedLog(f, j.rs.cfg.MaxOutput)}, nil
}

func (j *judgeJobs) Exhausted() error { return exhausted(j.rs.cfg.Sandbox) }

// closer is a cappedLog as an io.WriteCloser.
type closer struct{ l *cappedLog }

func (c closer) Write(p []byte) (int, error) { c.l.Write(p); return len(p), nil }
func (c closer) Close() error                { return c.l.close() }
