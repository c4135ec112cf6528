package spec

import (
	"fmt"
	"strings"
)

// SpecError is the error of every refusal of a spec (docs/spec.md): main
// prints it and exits 2. Hyp is empty for spec-level fields ("command",
// "timeout"...); Field is empty when the refusal is about the whole document.
type SpecError struct {
	Hyp   string
	Field string
	Msg   string
}

func (e *SpecError) Error() string {
	var b strings.Builder
	if e.Hyp != "" {
		fmt.Fprintf(&b, "hypothesis %q: ", e.Hyp)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}
