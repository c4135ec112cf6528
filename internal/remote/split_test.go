package remote

import (
	"os/exec"
	"reflect"
	"testing"
)

func TestSplitCommandLikeAShell(t *testing.T) {
	for in, want := range map[string][]string{
		`ssh`:                            {"ssh"},
		`ssh -F /dev/null  -p 22`:        {"ssh", "-F", "/dev/null", "-p", "22"},
		`ssh -i 'my key' -o "A=b c"`:     {"ssh", "-i", "my key", "-o", "A=b c"},
		`ssh -o "x\"y" a\ b`:             {"ssh", "-o", `x"y`, "a b"},
		`'/opt/my ssh/ssh' -v`:           {"/opt/my ssh/ssh", "-v"},
		"ssh\t-o\nProxyJump=j":           {"ssh", "-o", "ProxyJump=j"},
		`ssh -o 'a'"b"c`:                 {"ssh", "-o", "abc"},
		`ssh ""`:                         {"ssh", ""},
		`ssh "a\b"`:                      {"ssh", `a\b`},
		`ssh -o ProxyCommand='nc %h %p'`: {"ssh", "-o", "ProxyCommand=nc %h %p"},
	} {
		got, err := SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `  `, `ssh 'x`, `ssh "x`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
}

// The remote shell must get back exactly the words quoted.
func TestShellLineRoundTripsThroughSh(t *testing.T) {
	words := []string{"a b", "it's", `$HOME`, "`id`", "x\ny", "", "plain", `back\slash`, "*"}
	out, err := exec.Command("sh", "-c", `for a in `+shellLine(words...)+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	start := 0
	for i, c := range out {
		if c == 0 {
			got = append(got, string(out[start:i]))
			start = i + 1
		}
	}
	if !reflect.DeepEqual(got, words) {
		t.Fatalf("sh saw %q, want %q", got, words)
	}
}
