package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/shadow-dev/shadow/docs"
)

// A typo of a command, a flag or a help topic is answered with what it
// was most likely meant to be, exit 2, nothing run.
func TestDidYouMean(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lgo"}, "did you mean `shadow log`?"},
		{[]string{"shwo", "@last"}, "did you mean `shadow show`?"},
		{[]string{"--headles", "s.json", "--", "true"}, "unknown flag: --headles: did you mean --headless?"},
		{[]string{"--headles", "s.json"}, "did you mean --headless?"},
		{[]string{"--basline", "--patch", "x.diff", "--", "true"}, "did you mean --baseline?"},
		{[]string{"log", "--jsno"}, "log: unknown flag: --jsno: did you mean --json?"},
		{[]string{"help", "spc"}, "did you mean `shadow help spec`?"},
		{[]string{"help", "lgo"}, "did you mean `shadow help log`?"},
	} {
		_, errb, err := execCLI("", c.args...)
		if code(err) != 2 {
			t.Errorf("%v: exit %d, want 2 (%v)", c.args, code(err), err)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (stderr %q), want %q", c.args, err, errb, c.want)
		}
	}
	// Nothing near: no guess, the loader's own words.
	if _, _, err := execCLI("", "zzzzzz"); err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "cannot read spec zzzzzz") {
		t.Errorf("zzzzzz: %v", err)
	}
}

// `shadow help spec` prints the spec's reference as this binary ships it,
// so init's "next:" line points at something every install has.
func TestHelpSpec(t *testing.T) {
	out, _, err := execCLI("", "help", "spec")
	if err != nil || out != docs.Spec || !strings.HasPrefix(out, "# The spec") {
		t.Fatalf("help spec: %v\n%.200s", err, out)
	}
}

// Completion offers every value --mode, --net, --tmp, --upper and --color
// take, and each value offered is one the flag accepts.
func TestFlagValuesComplete(t *testing.T) {
	root := NewRoot(Streams{}, "test")
	for name, vals := range flagValues {
		f := root.Flags().Lookup(name)
		if f == nil {
			t.Errorf("flagValues names --%s, which the run has not", name)
			continue
		}
		var words []string
		for _, v := range vals {
			w, _, _ := strings.Cut(v, "\t")
			words = append(words, w)
			if err := f.Value.Set(w); err != nil {
				t.Errorf("--%s offers %q, which it refuses: %v", name, w, err)
			}
		}
		// The refusal lists what is accepted: the same words, none left out.
		err := f.Value.Set("bogus")
		if err == nil {
			t.Errorf("--%s accepts bogus", name)
			continue
		}
		for _, w := range words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("--%s's refusal %q does not name %q", name, err, w)
			}
		}
		out, _, _ := execCLI("", "__complete", "--"+name, "")
		for _, w := range words {
			if !strings.Contains(out, w+"\t") && !strings.Contains(out, w+"\n") {
				t.Errorf("shadow __complete --%s '' does not offer %s:\n%s", name, w, out)
			}
		}
	}
	// Every flag whose value is one of a few words has its completions.
	root.Flags().VisitAll(func(f *pflag.Flag) {
		switch f.Value.Type() {
		case "MODE", "NET", "TMP", "WHERE", "WHEN":
			if _, ok := flagValues[f.Name]; !ok {
				t.Errorf("--%s takes one of a few words (%s) and completes none", f.Name, f.Value.Type())
			}
		}
	})
}
