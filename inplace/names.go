package inplace

// Names inside a workspace's state dir, the same on every OS (gc and the
// run service name them whether or not in-place runs exist here).
const (
	LockName    = "inplace.lock"    // the workspace lock (flock)
	JournalName = "inplace-journal" // the live journal: present only while a hypothesis is in the checkout
	KeptName    = "inplace-kept"    // originals of files left alone because they changed during a run
)
