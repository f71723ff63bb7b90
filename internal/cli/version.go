package cli

import (
	"runtime/debug"
	"strings"
)

// version names the build this binary came from, read from what the Go
// toolchain recorded in it, so no release step has to remember to stamp
// one: the module's version when it was built as a module (go install
// ...@v1.2.0, or a build in a checkout, which Go names after the tag or
// the commit), else the commit it was built from, marked when the tree
// had changes, else "devel" (a build without version control, such as the
// test binary).
func version(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := []string{"devel", rev}
	if modified {
		v = append(v, "modified")
	}
	return strings.Join(v, " ")
}

// versionLine is what --version prints: "git-checkpoint version v1.2.0",
// shaped like git's own "git version 2.39.5" so that scripts reading one
// can read the other.
func versionLine(prog string) string {
	info, ok := debug.ReadBuildInfo()
	return prog + " version " + version(info, ok)
}
