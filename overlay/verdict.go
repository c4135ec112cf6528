package overlay

// Verdict is what the probe found: which mode this machine gives and why.
// It is shared by the Linux probe and the stub elsewhere (one definition,
// so the JSON of `shadow probe --json` is the same on every OS).
type Verdict struct {
	Mode    string   `json:"mode"`              // engine.ModeOverlay or ModeInplace
	Reason  string   `json:"reason"`            // one line a user can read
	Stage   string   `json:"stage,omitempty"`   // the step that failed
	Errno   string   `json:"errno,omitempty"`   // its errno, e.g. EPERM
	Fix     string   `json:"fix,omitempty"`     // what to do about it
	Options []string `json:"options,omitempty"` // overlay options that mounted
	Proc    bool     `json:"fresh_proc"`        // a fresh /proc could be mounted
	UserNS  bool     `json:"user_namespace"`    // a user namespace is used (not root)
	Upper   string   `json:"upper_dir"`         // where upper dirs are made
	Base    string   `json:"base,omitempty"`    // where they were asked to be made (the cache key)
	BootID  string   `json:"boot_id,omitempty"`
	Version string   `json:"version,omitempty"`
	Cached  bool     `json:"cached"`
	Layer   string   `json:"layer,omitempty"` // what blocks namespaces (blockers_linux.go)
	// Protection says plainly what the mode guards against.
	Protection string `json:"protection"`
}
