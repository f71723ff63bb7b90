// Command git-checkpoint-scan is the secret scanner that `git checkpoint
// push` runs on what it would publish, kept out of git-checkpoint so that
// hooks never load its detector. See git-checkpoint(1), section push.
package main

import (
	"os"

	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets/leaks"
)

func main() { os.Exit(secrets.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, leaks.Full())) }
