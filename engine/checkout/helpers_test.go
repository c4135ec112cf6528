package checkout

import "github.com/shadow-dev/shadow/engine/spec"

func file(p, content string) spec.File {
	return spec.File{Path: p, Content: []byte(content), Mode: 0o644}
}
