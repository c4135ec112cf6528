package overlay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// A hypothesis of many files is written into its upper dir a file at a
// time (minutes for 50,000 on a slow disk): a signal then stops it at
// once, with ctx's error, not after the last file.
func TestWriteUpperStopsWhenCancelled(t *testing.T) {
	var files []engine.File
	for i := 0; i < 1000; i++ {
		files = append(files, engine.File{Path: fmt.Sprintf("d/f%d", i), Content: []byte("x"), Mode: 0o644})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	upper := t.TempDir()
	if err := writeUpper(ctx, t.TempDir(), upper, files); !errors.Is(err, context.Canceled) {
		t.Fatalf("writeUpper with a done context: %v", err)
	}
	if left, _ := os.ReadDir(upper); len(left) != 0 {
		t.Errorf("wrote %d entries after the signal", len(left))
	}
}
