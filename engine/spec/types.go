// Package spec is the spec document of docs/spec.md (as
// decoded and validated) and its resolution into hypotheses: the final
// content of every file each one changes. It imports no other engine
// package.
package spec

import (
	"os"
	"sort"
)

// Spec is the JSON document of docs/spec.md, as decoded (unknown fields are
// refused by the decoder).
type Spec struct {
	// Schema is the "$schema" an editor reads (docs/schema/spec.v1.json,
	// as `shadow init` writes it); shadow ignores its value.
	Schema     string            `json:"$schema,omitempty"`
	Hypotheses []SpecHyp         `json:"hypotheses"`
	Command    []string          `json:"command,omitempty"`
	Timeout    string            `json:"timeout,omitempty"`
	Jobs       int               `json:"jobs,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Net        string            `json:"net,omitempty"`
	Tmp        string            `json:"tmp,omitempty"`
	// HostPorts: host localhost TCP ports every hypothesis reaches at its
	// own 127.0.0.1 (--host-port); Memory: each hypothesis's memory cap,
	// a size like "2G" (--memory).
	HostPorts []int  `json:"host_ports,omitempty"`
	Memory    string `json:"memory,omitempty"`
	JUnit     string `json:"junit,omitempty"`
	// Writable are directories outside the workspace the command may
	// write, each overlaid per hypothesis and thrown away (--writable).
	Writable []string `json:"writable,omitempty"`
	// TestPaths are globs naming the test files (nil: DefaultTestPaths);
	// with the runners' configuration and the common files they are the
	// judge a candidate must not change (docs/report.md).
	TestPaths      []string `json:"test_paths,omitempty"`
	AllowTestEdits bool     `json:"allow_test_edits,omitempty"`
	// NoCross turns the cross phase off: candidates' proposed tests do
	// not run on each other (--no-cross; docs/report.md "Ranking").
	NoCross bool `json:"no_cross,omitempty"`
	// Shard runs one slice of the hypotheses (--shard K/N, docs/cli.md):
	// "K/N", or "/N" with the index from the environment.
	Shard string `json:"shard,omitempty"`
	// AllowSuspicious lets a candidate whose code the judge-aware scan
	// flagged win (--allow-suspicious).
	AllowSuspicious bool `json:"allow_suspicious,omitempty"`
	// Confirm is how many more times the baseline and the leading
	// candidate run before a winner is named (--confirm N).
	Confirm int `json:"confirm,omitempty"`
	// Common is applied to every hypothesis, the baseline included, after
	// its base and before its own edits. Its files are the judge's.
	Common *SpecCommon `json:"common,omitempty"`
	// TestsFrom is a directory of test files or a unified diff, relative
	// to the spec's directory, written before the candidates were seen:
	// the judge's, laid over every hypothesis (--tests-from; TestsFrom).
	TestsFrom string       `json:"tests_from,omitempty"`
	Remote    []RemoteNode `json:"remote,omitempty"`
}

// SpecCommon is the spec-level "common": edits, deletes and a patch every
// hypothesis gets.
type SpecCommon struct {
	Edits  []SpecEdit `json:"edits,omitempty"`
	Delete []string   `json:"delete,omitempty"`
	Patch  string     `json:"patch,omitempty"`
}

// SpecHyp is one hypothesis as written in a spec.
type SpecHyp struct {
	Name   string     `json:"name"`
	Base   string     `json:"base,omitempty"`
	Edits  []SpecEdit `json:"edits,omitempty"`
	Delete []string   `json:"delete,omitempty"`
	Patch  string     `json:"patch,omitempty"`
}

// SpecEdit replaces (or creates) one file. Exactly one of File, Content and
// ContentBase64 is set.
type SpecEdit struct {
	Path          string  `json:"path"`
	File          string  `json:"file,omitempty"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 *string `json:"content_base64,omitempty"`
	Mode          string  `json:"mode,omitempty"`
}

// Hypothesis is a validated hypothesis: the final content of every file it
// changes, relative to the checkout, and the paths it deletes.
//
// Files and Deletes are the hypothesis's own (its base chain and its own
// edits): what is recorded, diffed and applied. Common and CommonDeletes
// are the spec's "common" part it runs with but does not propose (the
// judge's files): the sandbox gets both (Job.Hyp is WithCommon), --apply
// and the records only the own part.
type Hypothesis struct {
	Name          string
	Files         []File   // sorted by Path
	Deletes       []string // sorted; workspace-relative, '/'-separated
	Common        []File   // sorted by Path; never also in Files
	CommonDeletes []string // sorted; never also in Deletes
	// ReplacedCommon and ReplacedCommonDeletes are the common part's
	// version of the paths the hypothesis's own edits replaced: its
	// judged run puts the judge's version back (engine/judge/judged.go).
	ReplacedCommon        []File
	ReplacedCommonDeletes []string
}

// IsBaseline reports whether the hypothesis changes nothing of its own
// (the spec's common part does not count).
func (h Hypothesis) IsBaseline() bool { return len(h.Files) == 0 && len(h.Deletes) == 0 }

// WithCommon is what the command must see: the common files and deletes
// merged with the hypothesis's own, in Files and Deletes, and Common and
// CommonDeletes empty. The two sets never share a path (Resolve keeps the
// hypothesis's own version of a path it also got from common).
func (h Hypothesis) WithCommon() Hypothesis {
	if len(h.Common) == 0 && len(h.CommonDeletes) == 0 {
		return h
	}
	out := Hypothesis{Name: h.Name}
	out.Files = append(append(out.Files, h.Files...), h.Common...)
	out.Deletes = append(append(out.Deletes, h.Deletes...), h.CommonDeletes...)
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	sort.Strings(out.Deletes)
	return out
}

// File is one file a hypothesis writes.
type File struct {
	Path    string // workspace-relative, '/'-separated
	Content []byte
	Mode    os.FileMode // permission bits (and nothing else)
}
