//go:build !unix

package cli

import "io/fs"

func ownedByMe(fi fs.FileInfo) bool                  { return false }
func lockDemo(path string) (release func(), ok bool) { return nil, false }
