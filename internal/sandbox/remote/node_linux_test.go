package remote

import (
	"context"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

type inplaceFake struct{ ran bool }

func (f *inplaceFake) Mode() engine.Mode { return engine.ModeInplace }
func (f *inplaceFake) Parallel() bool    { return false }
func (f *inplaceFake) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	f.ran = true
	return engine.Outcome{}, nil
}

// The node side never runs, without it, a job that asked for isolation
// its sandbox cannot give.
func TestNodeRefusesIsolationInPlace(t *testing.T) {
	sb := &inplaceFake{}
	m := runJob(context.Background(), sb, t.TempDir(), 1, &wireJob{Net: "isolated", Tmp: "shared", Command: []string{"true"}}, func(nodeMsg) {})
	if sb.ran || !strings.Contains(m.Error, "--net isolated needs overlay mode") {
		t.Errorf("ran %v, message %+v", sb.ran, m)
	}
	m = runJob(context.Background(), sb, t.TempDir(), 2, &wireJob{Net: "host", Tmp: "shared", Command: []string{"true"}}, func(nodeMsg) {})
	if !sb.ran || m.Outcome == nil {
		t.Errorf("a job asking for nothing was not run: %+v", m)
	}
}
