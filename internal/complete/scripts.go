package complete

import (
	"embed"
	"slices"
)

//go:embed scripts
var scripts embed.FS

// Shells are the shells a script is written for.
var Shells = []string{"bash", "zsh", "fish"}

// Script returns the completion script for shell, one of Shells.
func Script(shell string) ([]byte, bool) {
	if !slices.Contains(Shells, shell) {
		return nil, false
	}
	b, err := scripts.ReadFile("scripts/" + shell)
	return b, err == nil
}
