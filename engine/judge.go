package engine

import "github.com/shadow-dev/shadow/engine/judge"

// What the outcomes mean lives in engine/judge; these are its entry points
// under the names engine's callers have always used.

type (
	TestsFrom  = judge.TestsFrom
	MergeError = judge.MergeError
)

var (
	DefaultTestPaths = judge.DefaultTestPaths

	JudgePathsIn     = judge.JudgePathsIn
	JudgePaths       = judge.JudgePaths
	CodeOnly         = judge.CodeOnly
	MergeShards      = judge.MergeShards
	ReadShardReport  = judge.ReadShardReport
	CommitOriginals  = judge.CommitOriginals
	HypDiff          = judge.HypDiff
	Rank             = judge.Rank
	FailureReason    = judge.FailureReason
	ShardDigest      = judge.ShardDigest
	CheckoutCommit   = judge.CheckoutCommit
	ResolveTestsFrom = judge.ResolveTestsFrom
	TestsFromCode    = judge.TestsFromCode
	WithTestsFrom    = judge.WithTestsFrom
)
