// Package stale follows the checkout's source files during a run and
// names those that changed (the report's stale paths; docs/internals.md,
// "Records, bases and staleness"): a scan of the sources (git's list where
// the checkout is a git work tree, a walk otherwise), an inotify(7) watch
// on every source directory on Linux, and one long-lived
// `git check-ignore --stdin` co-process that keeps build outputs out.
//
// It imports no engine package but the checkout's originals and the spec
// (engine/checkout, engine/spec).
package stale
