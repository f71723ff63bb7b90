module github.com/git-checkpoint/git-checkpoint

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/gofrs/flock v0.13.2
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require golang.org/x/tools v0.26.0 // indirect
