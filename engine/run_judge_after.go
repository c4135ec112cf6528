package engine

import "context"

// judgeAfter says what the outcomes mean once every job has ended
// (engine/judge, After): the cross phase's table, the judged notes, the
// rank, the run's error when every remote node failed, the --confirm
// reruns.
func (rs *runState) judgeAfter(ctx context.Context) { rs.jr.After(ctx, rs.rep) }
