// Package docs holds the pages of shadow's contract (the *.md files beside
// this one). The binary embeds the spec's page so that `shadow help spec`
// answers wherever shadow is installed, without a clone of this repository.
package docs

import _ "embed"

// Spec is docs/spec.md.
//
//go:embed spec.md
var Spec string
