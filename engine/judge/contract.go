package judge

import (
	"github.com/shadow-dev/shadow/engine/checkout"
	"github.com/shadow-dev/shadow/engine/report"
	"github.com/shadow-dev/shadow/engine/spec"
	"github.com/shadow-dev/shadow/engine/stale"
	"github.com/shadow-dev/shadow/internal/bytesize"
)

// The contract (engine/report), the spec (engine/spec) and the checkout
// (engine/checkout) under the short names the judge's code uses.

type (
	Report         = report.Report
	Result         = report.Result
	Event          = report.Event
	Tests          = report.Tests
	ProposedTest   = report.ProposedTest
	Cross          = report.Cross
	CrossRef       = report.CrossRef
	RankKey        = report.RankKey
	ShardInfo      = report.ShardInfo
	ShardCross     = report.ShardCross
	TestCollection = report.TestCollection

	TestsFromInfo    = report.TestsFromInfo
	TestsFromOutcome = report.TestsFromOutcome
	Contrast         = report.Contrast

	SpecError  = spec.SpecError
	Hypothesis = spec.Hypothesis
	File       = spec.File
	Limits     = spec.Limits

	FileState = checkout.FileState
)

const (
	StatusQueued    = report.StatusQueued
	StatusRunning   = report.StatusRunning
	StatusPassed    = report.StatusPassed
	StatusFailed    = report.StatusFailed
	StatusTimedOut  = report.StatusTimedOut
	StatusError     = report.StatusError
	StatusCancelled = report.StatusCancelled

	ReportSchema = report.ReportSchema
	EventSchema  = report.EventSchema

	KindHypStarted    = report.KindHypStarted
	KindHypFinished   = report.KindHypFinished
	KindRunFinished   = report.KindRunFinished
	KindCrossStarted  = report.KindCrossStarted
	KindCrossFinished = report.KindCrossFinished
)

var (
	UnifiedDiff = report.UnifiedDiff
	FormatSize  = bytesize.Format
)

// listShort is the text writer's short list, for the judge's sentences.
var listShort = report.ListShort

func readState(workspace, rel string) FileState { return checkout.ReadState(workspace, rel) }

func gitRiskReason(workspace string, h Hypothesis, orig map[string]FileState) string {
	return checkout.GitRiskReason(workspace, h, orig)
}

func safeGitConfig() []string { return stale.SafeGitConfig() }

func gitZ(dir string, args ...string) ([]string, error) { return stale.GitZ(dir, args...) }
