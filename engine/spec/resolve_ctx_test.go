package spec

import (
	"context"
	"errors"
	"testing"
)

// Resolution stops at a done context with its error, not a spec error:
// a signal ends it (exit 130), whatever the spec holds.
func TestResolveContextStopsWhenDone(t *testing.T) {
	s, err := DecodeSpec(bigSpec(1000))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ws := t.TempDir()
	if _, err := ResolveContext(ctx, s, ws, ws, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("resolve with a done context: %v, want context.Canceled", err)
	}
}
