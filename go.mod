module github.com/shadow-dev/shadow

go 1.26.8

require (
	github.com/sergi/go-diff v1.4.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
