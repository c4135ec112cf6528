//go:build !linux

package sandbox

import "time"

// treeCPU cannot be read here: the baseline is waited for up to firstMax.
func treeCPU() time.Duration { return -1 }
