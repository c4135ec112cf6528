package engine

import (
	"context"
	"sync"
	"testing"
)

// copyingSandbox is a fakeSandbox whose every job costs a copy.
type copyingSandbox struct {
	fakeSandbox
	mu        sync.Mutex
	ms, bytes int64
}

func (c *copyingSandbox) Run(ctx context.Context, job Job) (Outcome, error) {
	c.mu.Lock()
	c.ms += 7
	c.bytes += 1000
	c.mu.Unlock()
	return c.fakeSandbox.Run(ctx, job)
}

func (c *copyingSandbox) CopyCost() (int64, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ms, c.bytes
}

// TestCopyCostReported: copy_ms and copy_bytes are this run's share of a
// copying sandbox's cost (a sandbox used before counts only from the
// run's start), and stay null for a sandbox that makes no copies.
func TestCopyCostReported(t *testing.T) {
	sb := &copyingSandbox{fakeSandbox: fakeSandbox{parallel: true, out: map[string]string{}}, ms: 100, bytes: 5}
	cfg, _ := testConfig(t, sb, hyp("a"), hyp("b"), hyp("c"))
	rep := Run(context.Background(), cfg)
	if rep.CopyMS == nil || rep.CopyBytes == nil || *rep.CopyMS != 21 || *rep.CopyBytes != 3000 {
		t.Fatalf("copy_ms %v copy_bytes %v, want 21 and 3000", rep.CopyMS, rep.CopyBytes)
	}
	cfg, _ = testConfig(t, wrapped{sb}, hyp("a"))
	if rep := Run(context.Background(), cfg); rep.CopyBytes == nil || *rep.CopyBytes != 1000 {
		t.Errorf("through a wrapper: copy_bytes %v, want 1000", rep.CopyBytes)
	}
	cfg, _ = testConfig(t, &fakeSandbox{parallel: true, out: map[string]string{}}, hyp("a"))
	if rep := Run(context.Background(), cfg); rep.CopyMS != nil || rep.CopyBytes != nil {
		t.Errorf("a sandbox without copies reported copy_ms %v copy_bytes %v", rep.CopyMS, rep.CopyBytes)
	}
}

// wrapped is a sandbox wrapper like --freeze's, which says what it wraps.
type wrapped struct{ Sandbox }

func (w wrapped) Unwrap() Sandbox { return w.Sandbox }
