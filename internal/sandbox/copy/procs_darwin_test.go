package copy

// The process checks read /proc (needProc skips them here).

func marked(mark string) []int { return nil }

func killAll(pids []int) {}
