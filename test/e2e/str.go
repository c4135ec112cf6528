//go:build linux

package e2e

func Str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
