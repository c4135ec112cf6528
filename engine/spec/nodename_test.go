package spec

import "testing"

func TestValidNodeName(t *testing.T) {
	for _, ok := range []string{"n1", "user@host", "build-box.example.com", "local"} {
		if err := ValidNodeName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-oProxyCommand=x", "a b", "h:22", "a'b", "x/y"} {
		if ValidNodeName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
