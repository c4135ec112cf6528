module github.com/shadow-dev/shadow

go 1.26.8
