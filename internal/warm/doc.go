// Package warm keeps, per workspace, a layer of build outputs for the
// checkout's current state, outside the checkout, that every hypothesis of
// a later run sees stacked just above the workspace (overlay mode: one more
// read-only lowerdir; copy mode: copied over the copy). An agent using
// shadow never builds in the checkout, so without it the checkout's
// target/ (build/, __pycache__, .pytest_cache…) lags its sources further
// after every applied winner and every hypothesis of every run rebuilds
// the drift, then throws it away with its upper dir.
//
// What counts as a build output: a path git ignores (git check-ignore,
// which consults the index, so a tracked file never counts even under an
// ignored directory; `git ls-files` is asked as well for the files tracked
// inside an ignored directory). Sources, untracked or not, are never taken.
// A workspace that is not a git checkout gets no layer.
//
// Where it comes from: only the no-edit baseline's upper dir (a candidate
// could plant .pyc files or rlibs every later run would use), after syncfs
// on its filesystem (uppers are mounted volatile, so a write-back error is
// only seen there), and only when the baseline ran to its end (passed or
// failed, not timed out, cancelled or in error) in a run whose checkout
// did not change meanwhile (not stale). Of that upper, the layer takes
// regular files (no set-id bits), directories and symlinks whose target
// stays inside the workspace; never whiteouts (a whiteout of an ignored
// path removes it from the layer), opaque markers, overlay xattrs, devices,
// fifos or sockets.
//
// How a new generation is made: under a per-workspace lock, the current
// generation is hard-linked into a new directory (its files are never
// written in place: overlayfs copies a lower file up before writing it and
// copy mode copies it), the baseline's outputs are moved or copied over it
// (mtimes kept: make and cargo compare them), the result is synced and
// renamed into place, then meta.json, written atomically, names it. A run
// holds a shared flock on the generation it started with until it ends, so
// an older generation is removed only when no run uses it.
//
// When it is not used or dropped: the layer is valid to stack whenever the
// tools themselves re-check freshness against the sources (cargo
// fingerprints and make/ninja timestamps compare mtimes, Python's .pyc
// headers carry the source's mtime and size, pytest's and vitest's caches
// are only hints, Go's test cache lives outside the workspace and is not
// affected), so a source change is not a reason to drop it. It is not used
// when one of its top-level paths is no longer ignored or holds a tracked
// file (the layer would show over a source), or when its format is not
// this binary's. Directories a build made (src/__pycache__/) show in the
// merged view even after the checkout lost their parent: ignored paths,
// which the tools treat as their own. When a generation is built, a file of the old one whose
// checkout counterpart is newer is dropped (the user built in the
// checkout: theirs wins). `shadow gc` bounds the layers' total size
// (least recently used first) and removes those of workspaces that no
// longer exist.
package warm
