package engine

import "github.com/shadow-dev/shadow/engine/stale"

// The staleness watch (engine/stale: the source scan, inotify, the ignore
// co-process) under the names engine's callers have always used.

type (
	SourceState = stale.SourceState
	StaleWatch  = stale.Watch
)

// StaleAll is stale.All: the whole checkout, when a run cannot tell which
// paths changed.
const StaleAll = stale.All

// ScanSources is stale.ScanSources.
func ScanSources(workspace string, exclude ...string) *SourceState {
	return stale.ScanSources(workspace, exclude...)
}

// SourceFiles is stale.SourceFiles.
func SourceFiles(workspace string, exclude ...string) []string {
	return stale.SourceFiles(workspace, exclude...)
}

// StartStaleWatch is stale.Start.
func StartStaleWatch(workspace string, exclude ...string) StaleWatch {
	return stale.Start(workspace, exclude...)
}

func safeGitConfig() []string { return stale.SafeGitConfig() }

func gitZ(dir string, args ...string) ([]string, error) { return stale.GitZ(dir, args...) }
