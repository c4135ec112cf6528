package judge

// CodeOnly is h without the judge paths it proposes (a result's
// judge_edits): what --apply and `shadow apply` write unless --with-tests
// asks for its proposed tests too. The code is what was judged (judged.go);
// its tests are a proposal for the checkout's suite, which the user takes
// on purpose.
func CodeOnly(h Hypothesis, judgePaths []string) Hypothesis {
	drop := set(judgePaths)
	out := Hypothesis{Name: h.Name}
	for _, f := range h.Files {
		if !drop[f.Path] {
			out.Files = append(out.Files, f)
		}
	}
	for _, p := range h.Deletes {
		if !drop[p] {
			out.Deletes = append(out.Deletes, p)
		}
	}
	return out
}
