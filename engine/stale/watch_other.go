//go:build !linux

package stale

// Start scans the checkout's sources now and again at Stop:
// inotify is Linux's, and only in-place mode runs elsewhere.
func Start(workspace string, exclude ...string) Watch {
	workspace, exclude = resolvePaths(workspace, exclude)
	return scanWatch{st: ScanSources(workspace, exclude...), workspace: workspace}
}
