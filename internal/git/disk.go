package git

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// CaseSensitive reports whether the file system at top, the top of a
// working tree, tells names apart by case: a name of it with its case
// swapped is not the same file. It is asked of top's own name, else of
// the .git entry in it; false (not known) when neither has a letter or
// can be looked at. Creating a probe file in the tree would be a change
// a person can see.
func CaseSensitive(top string) bool {
	for _, p := range []string{top, filepath.Join(top, ".git")} {
		base := filepath.Base(p)
		swapped := strings.Map(swapCase, base)
		if swapped == base {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		other, err := os.Lstat(filepath.Join(filepath.Dir(p), swapped))
		if os.IsNotExist(err) {
			return true
		}
		return err == nil && !os.SameFile(fi, other)
	}
	return false
}

func swapCase(r rune) rune {
	switch {
	case unicode.IsUpper(r):
		return unicode.ToLower(r)
	case unicode.IsLower(r):
		return unicode.ToUpper(r)
	}
	return r
}
