package engine

import "strings"

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

// sealNote is the text report's header part for a seal: ", sealed by
// landlock abi 7", or ", guards against accidents only" where nothing
// sealed a copy or in-place command.
func sealNote(seal string) string {
	switch {
	case seal == "":
		return ""
	case strings.HasPrefix(seal, "none"):
		return ", unsealed: guards against accidents only"
	}
	return ", sealed by " + seal
}
