// Package bytesize reads and writes byte counts as shadow's flags and
// messages spell them (64M in, 64 MiB out; powers of 1024).
package bytesize

import (
	"errors"
	"fmt"
)

// Format writes a byte count for people: 64 MiB, 1.5 KiB, 12 bytes.
func Format(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := fmt.Sprintf("%.1f", v)
	if v == float64(int64(v)) {
		s = fmt.Sprintf("%d", int64(v))
	}
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[exp]
}

// Parse reads a size as the flags take it: a number of bytes, or one
// with a unit K, M, G (or KB/KiB, MB/MiB, GB/GiB; all powers of 1024).
func Parse(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("empty size")
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes, optionally with K, M or G (e.g. 64M)", s)
	}
	var n int64
	if _, err := fmt.Sscan(s[:i], &n); err != nil {
		return 0, fmt.Errorf("size %q: %v", s, err)
	}
	mult := int64(1)
	switch u := s[i:]; u {
	case "", "B":
	case "K", "KB", "KiB", "k":
		mult = 1 << 10
	case "M", "MB", "MiB":
		mult = 1 << 20
	case "G", "GB", "GiB":
		mult = 1 << 30
	default:
		return 0, fmt.Errorf("size %q: unknown unit %q (want K, M or G)", s, u)
	}
	if n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want a positive size", s)
	}
	return n * mult, nil
}
