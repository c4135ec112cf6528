package tui

import (
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// The diff pane's code colours. shadow defines its own two palettes rather
// than importing chroma's styles package: that package parses ~70 embedded
// XML styles in its init, and every sandbox init (a re-exec of this binary,
// one per hypothesis) would pay for it before its first instruction.
var (
	styleOnce         sync.Once
	darkCode, litCode *chroma.Style
)

func codeStyles() (dark, light *chroma.Style) {
	styleOnce.Do(func() {
		darkCode = chroma.MustNewStyle("shadow-dark", chroma.StyleEntries{
			chroma.Background:        "#e6edf3",
			chroma.Keyword:           "#ff7b72",
			chroma.KeywordConstant:   "#79c0ff",
			chroma.NameFunction:      "bold #d2a8ff",
			chroma.NameClass:         "bold #f0883e",
			chroma.NameBuiltin:       "#ffa657",
			chroma.NameTag:           "#7ee787",
			chroma.NameAttribute:     "#79c0ff",
			chroma.LiteralString:     "#a5d6ff",
			chroma.LiteralNumber:     "#79c0ff",
			chroma.Operator:          "#ff7b72",
			chroma.Comment:           "italic #8b949e",
			chroma.CommentPreproc:    "bold #8b949e",
			chroma.GenericHeading:    "bold #79c0ff",
			chroma.GenericSubheading: "#79c0ff",
		})
		litCode = chroma.MustNewStyle("shadow-light", chroma.StyleEntries{
			chroma.Background:        "#1f2328",
			chroma.Keyword:           "#cf222e",
			chroma.KeywordConstant:   "#0550ae",
			chroma.NameFunction:      "bold #8250df",
			chroma.NameClass:         "bold #953800",
			chroma.NameBuiltin:       "#953800",
			chroma.NameTag:           "#116329",
			chroma.NameAttribute:     "#0550ae",
			chroma.LiteralString:     "#0a3069",
			chroma.LiteralNumber:     "#0550ae",
			chroma.Operator:          "#cf222e",
			chroma.Comment:           "italic #6e7781",
			chroma.CommentPreproc:    "bold #6e7781",
			chroma.GenericHeading:    "bold #0550ae",
			chroma.GenericSubheading: "#0550ae",
		})
	})
	return darkCode, litCode
}
