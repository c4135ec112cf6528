package engine

// CopyCounter is implemented by a sandbox that copies the workspace for
// each hypothesis (copy mode): what its copies have cost so far, the time
// spent copying summed over hypotheses and the bytes of file data copied.
type CopyCounter interface {
	CopyCost() (ms, bytes int64)
}

// startCopyCost returns what fills the report's copy_ms and copy_bytes
// with this run's share of the sandbox's copy cost; they stay null for a
// sandbox that makes no copies.
func startCopyCost(sb Sandbox) func(*Report) {
	cc, ok := As[CopyCounter](sb)
	if !ok {
		return func(*Report) {}
	}
	ms0, bytes0 := cc.CopyCost()
	return func(r *Report) {
		ms, bytes := cc.CopyCost()
		ms, bytes = ms-ms0, bytes-bytes0
		r.CopyMS, r.CopyBytes = &ms, &bytes
	}
}
