package engine

// commonSeal is the run's seal: the one every hypothesis that ran
// reports (copy and in-place modes), "" when they differ or none says.
func commonSeal(results []*Result) string {
	seal := ""
	for _, r := range results {
		if r.Seal == "" {
			continue
		}
		if seal != "" && r.Seal != seal {
			return ""
		}
		seal = r.Seal
	}
	return seal
}
