package docs

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// TestDocsModesTableIsCapabilitiesOf: docs/modes.md's "What each mode honours"
// table says, for every field of engine.Capabilities, what
// engine.CapabilitiesOf gives each local mode: the doc cannot promise what
// the refusals (internal/sandbox.Open) and the conformance suite do not.
func TestDocsModesTableIsCapabilitiesOf(t *testing.T) {
	b, err := os.ReadFile("docs/modes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "## What each mode honours")
	if !ok {
		t.Fatal(`docs/modes.md has no "## What each mode honours" section`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	modes := []engine.Mode{engine.ModeOverlay, engine.ModeCopy, engine.ModeInplace}
	rows := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 2+len(modes) || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		for i := range modes {
			rows[name] = append(rows[name], strings.TrimSpace(cells[2+i]))
		}
	}
	yes := map[bool]string{true: "yes", false: "no"}
	ct := reflect.TypeOf(engine.Capabilities{})
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		row, ok := rows[f.Name]
		if !ok {
			t.Errorf("docs/modes.md's table has no row for engine.Capabilities.%s", f.Name)
			continue
		}
		delete(rows, f.Name)
		for j, m := range modes {
			want := yes[reflect.ValueOf(engine.CapabilitiesOf(m)).Field(i).Bool()]
			if row[j] != want {
				t.Errorf("docs/modes.md says %s %s for %s; engine.CapabilitiesOf says %s", f.Name, row[j], m, want)
			}
		}
	}
	for name := range rows {
		t.Errorf("docs/modes.md's table names %s, which engine.Capabilities does not have", name)
	}
}
