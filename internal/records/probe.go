package records

import (
	"fmt"
	"strings"

	"github.com/shadow-dev/shadow/overlay"
)

// ProbeText is the probe's verdict for people and agents: the mode, why,
// and for a failed probe the step that failed, what runs do instead and
// the fix. copies, when not "", is where --mode auto makes copy-mode
// copies instead of overlay shadows.
func ProbeText(v overlay.Verdict, copies string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode: %s\n", v.Mode)
	fmt.Fprintf(&b, "why:  %s\n", v.Reason)
	if v.Protection != "" {
		fmt.Fprintf(&b, "protects against: %s\n", v.Protection)
	}
	if v.Mode == "overlay" {
		fmt.Fprintf(&b, "upper dirs: %s\n", v.Upper)
		if !v.Proc {
			b.WriteString("note: a fresh /proc could not be mounted; commands see the outer process list\n")
		}
	}
	if v.Layer != "" {
		fmt.Fprintf(&b, "blocked by: %s\n", v.Layer)
	}
	if copies != "" {
		fmt.Fprintf(&b, "step: %s (%s)\n", v.Stage, v.Errno)
		fmt.Fprintf(&b, "so:   --mode auto runs each hypothesis in its own copy of the workspace, in parallel (copies in %s)\n", copies)
	} else if v.Stage != "" && v.Mode != "overlay" {
		fmt.Fprintf(&b, "step: %s", v.Stage)
		if v.Errno != "" {
			fmt.Fprintf(&b, " (%s)", v.Errno)
		}
		b.WriteString("\n")
		b.WriteString("so:   runs fall back to in-place mode: one hypothesis at a time in the checkout itself, every\n")
		b.WriteString("      original journaled (fsynced) to the state dir first and restored after each run;\n")
		b.WriteString("      an interrupted run is restored by the next shadow on that workspace, or by `shadow gc`\n")
	}
	if v.Fix != "" {
		fmt.Fprintf(&b, "fix:  %s\n", strings.ReplaceAll(v.Fix, "\n", "\n      "))
	}
	return b.String()
}
