//go:build !linux

package engine

// StartStaleWatch scans the checkout's sources now and again at Stop:
// inotify is Linux's, and only in-place mode runs elsewhere.
func StartStaleWatch(workspace string, exclude ...string) StaleWatch {
	workspace, exclude = resolvePaths(workspace, exclude)
	return scanWatch{st: ScanSources(workspace, exclude...), workspace: workspace}
}
