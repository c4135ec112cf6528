package engine

import (
	"github.com/shadow-dev/shadow/engine/report"
	"github.com/shadow-dev/shadow/engine/spec"
	"github.com/shadow-dev/shadow/internal/bytesize"
)

// The contract (engine/report) and the spec (engine/spec) under the names
// engine's callers have always used.

type (
	Report         = report.Report
	Result         = report.Result
	Event          = report.Event
	Tests          = report.Tests
	WarmLayer      = report.WarmLayer
	HomeLayer      = report.HomeLayer
	NodeSync       = report.NodeSync
	OutsideWrite   = report.OutsideWrite
	ProposedTest   = report.ProposedTest
	Cross          = report.Cross
	CrossRef       = report.CrossRef
	HypLimits      = report.HypLimits
	RankKey        = report.RankKey
	ShardInfo      = report.ShardInfo
	ShardCross     = report.ShardCross
	TestCollection = report.TestCollection

	TestsFromInfo    = report.TestsFromInfo
	TestsFromOutcome = report.TestsFromOutcome
	Contrast         = report.Contrast

	Spec            = spec.Spec
	SpecCommon      = spec.SpecCommon
	SpecHyp         = spec.SpecHyp
	SpecEdit        = spec.SpecEdit
	SpecError       = spec.SpecError
	Hypothesis      = spec.Hypothesis
	File            = spec.File
	RemoteNode      = spec.RemoteNode
	Limits          = spec.Limits
	EditSourceError = spec.EditSourceError
	BaseResolver    = spec.BaseResolver
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

	KindRunStarted    = report.KindRunStarted
	KindHypStarted    = report.KindHypStarted
	KindOutput        = report.KindOutput
	KindTests         = report.KindTests
	KindHypFinished   = report.KindHypFinished
	KindRunFinished   = report.KindRunFinished
	KindCrossStarted  = report.KindCrossStarted
	KindCrossFinished = report.KindCrossFinished

	DefaultMaxEditSize = spec.DefaultMaxEditSize
	MaxConfirm         = spec.MaxConfirm
)

var (
	WriteText       = report.WriteText
	SameFailure     = report.SameFailure
	UnifiedDiff     = report.UnifiedDiff
	FormatSize      = bytesize.Format
	ParseSize       = bytesize.Parse
	LoadSpec        = spec.LoadSpec
	DecodeSpec      = spec.DecodeSpec
	Resolve         = spec.Resolve
	ResolveContext  = spec.ResolveContext
	ResolveBaseline = spec.ResolveBaseline
)

// listShort is the text writer's short list, for the judge's sentences.
var listShort = report.ListShort
