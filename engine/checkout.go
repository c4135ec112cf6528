package engine

import (
	"github.com/shadow-dev/shadow/engine/checkout"
	"github.com/shadow-dev/shadow/internal/gitrisk"
)

// The checkout as the run found it and writing into it (engine/checkout:
// originals, apply and its lock, what a command wrote outside) under the
// names engine's callers have always used.

type (
	FileState       = checkout.FileState
	ApplyOptions    = checkout.ApplyOptions
	ConflictError   = checkout.ConflictError
	StoppedError    = checkout.StoppedError
	NotWrittenError = checkout.NotWrittenError
	RiskyError      = checkout.RiskyError
)

// ReadOriginals is checkout.ReadOriginals.
func ReadOriginals(workspace string, hyps []Hypothesis) map[string]FileState {
	return checkout.ReadOriginals(workspace, hyps)
}

// CheckApply is checkout.CheckApply.
func CheckApply(workspace string, h Hypothesis, orig map[string]FileState) error {
	return checkout.CheckApply(workspace, h, orig)
}

// CheckApplyWith is checkout.CheckApplyWith.
func CheckApplyWith(workspace string, h Hypothesis, orig map[string]FileState, o ApplyOptions) error {
	return checkout.CheckApplyWith(workspace, h, orig, o)
}

// ApplyHypothesis is checkout.ApplyHypothesis.
func ApplyHypothesis(workspace string, h Hypothesis, orig map[string]FileState) ([]string, error) {
	return checkout.ApplyHypothesis(workspace, h, orig)
}

// ApplyHypothesisWith is checkout.ApplyHypothesisWith.
func ApplyHypothesisWith(workspace string, h Hypothesis, orig map[string]FileState, o ApplyOptions) ([]string, error) {
	return checkout.ApplyHypothesisWith(workspace, h, orig, o)
}

// GitRisks is checkout.GitRisks.
func GitRisks(workspace string, h Hypothesis, orig map[string]FileState) []gitrisk.Risk {
	return checkout.GitRisks(workspace, h, orig)
}

// RiskyFiles is checkout.RiskyFiles.
func RiskyFiles(h Hypothesis) []string { return checkout.RiskyFiles(h) }

func readState(workspace, rel string) FileState { return checkout.ReadState(workspace, rel) }

func sameState(a, b FileState) bool { return checkout.SameState(a, b) }

func gitRiskReason(workspace string, h Hypothesis, orig map[string]FileState) string {
	return checkout.GitRiskReason(workspace, h, orig)
}

const maxOutsideReport = checkout.MaxOutsideReport
