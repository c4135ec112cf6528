package bytesize

import "testing"

func TestParseAndFormat(t *testing.T) {
	for in, want := range map[string]int64{"12": 12, "64M": 64 << 20, "1K": 1024, "2GiB": 2 << 30, "16MiB": 16 << 20} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "M", "-1", "0", "12X"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if s := Format(64 << 20); s != "64 MiB" {
		t.Errorf("Format = %q", s)
	}
}
