package spec

import (
	"strings"
	"testing"
)

// A broken spec is refused with the line and column of the fault, the way
// an editor shows it, not a byte offset or a bare "EOF".
func TestSpecJSONErrorsSayLineAndColumn(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"cut off", "{\"hypotheses\": [\n {\"name\": \"a\"},\n", "line 3, column 1: the document ends early"},
		{"cut-off string", `{"hypotheses": [{"name": "a`, "line 1, column 28: the document ends early"},
		{"double comma", "{\"hypotheses\": [\n {\"name\": \"a\",,}]}", "line 2, column 15: invalid character ','"},
		{"bad value", `{"hypotheses": x}`, "line 1, column 16: invalid character 'x'"},
		{"trailing", `{"hypotheses": [{"name": "a"}]} x`, "trailing data after the spec at line 1, column 33"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeSpec([]byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want it to contain %q", err, c.want)
			}
			if _, ok := err.(*SpecError); !ok {
				t.Fatalf("not a *SpecError: %T", err)
			}
		})
	}
}
