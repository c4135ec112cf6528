//go:build !unix

package main

import "io/fs"

func devOf(fi fs.FileInfo) uint64 { return 0 }

func isWhiteout(fi fs.FileInfo) bool { return false }
