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
// How a new generation is made, under a per-workspace lock: when no run
// holds the current generation, it is changed in place (meta.json says
// "updating" meanwhile, so a crash half-way leaves a layer that is never
// stacked), each file replaced by unlinking the old name and linking the
// new inode, never written into, then synced and renamed to the next
// generation: the cost is what the baseline wrote, not the layer's size.
// When a run still holds it (it is a lower of live mounts, which must not
// change under them), the next generation is built beside it instead: the
// current one hard-linked (its files are never written in place: overlayfs
// copies a lower file up before writing it and copy mode copies it), the
// baseline's outputs linked or copied over it (mtimes kept: make and cargo
// compare them), synced, renamed into place, then named by meta.json,
// written atomically. A run holds a shared flock on the generation it
// started with until its jobs end; an older generation is removed once no
// run holds it.
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
// which the tools treat as their own. A layer file older than the
// checkout's own copy (the user built there) is not looked for: finding
// it would walk the whole layer on every update, and it is harmless, as
// the tools see it stale against the sources, rebuild in the shadow, and
// the next baseline's rebuild replaces it. `shadow gc` bounds the layers'
// total size (least recently used first) and removes those of workspaces
// that no longer exist.
package warm
