package dist

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A release is built from a tag and nothing else: vMAJOR.MINOR.PATCH
// exactly, which `git describe --tags --dirty` prints only at a clean
// tag. Anything else (a commit after a tag, a dirty tree, no tag, a test
// build) is a development build.
var releaseVersion = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)$`)

// Section headings of CHANGELOG.md, in Keep a Changelog's form.
var (
	versionHeading = regexp.MustCompile(`^## \[(\d+)\.(\d+)\.(\d+)\] - \d{4}-\d{2}-\d{2}$`)
	kinds          = []string{"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
)

// changelog is what CHANGELOG.md says about versions: whether it has an
// Unreleased section first, and its released versions, newest first.
type changelog struct {
	unreleased bool
	versions   []string // "1.2.0"
}

// parseChangelog reads CHANGELOG.md and refuses what is not Keep a
// Changelog's shape: a level-two heading is [Unreleased] (first, once)
// or [X.Y.Z] - YYYY-MM-DD, newest first; a level-three one is a kind of
// change.
func parseChangelog(data []byte) (changelog, error) {
	var c changelog
	var last [3]int
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		switch {
		case line == "## [Unreleased]":
			if c.unreleased || len(c.versions) > 0 {
				return c, fmt.Errorf("CHANGELOG.md:%d: [Unreleased] comes once, before every version", n)
			}
			c.unreleased = true
		case strings.HasPrefix(line, "## "):
			m := versionHeading.FindStringSubmatch(line)
			if m == nil {
				return c, fmt.Errorf("CHANGELOG.md:%d: %q is neither ## [Unreleased] nor ## [X.Y.Z] - YYYY-MM-DD", n, line)
			}
			var v [3]int
			for i := range v {
				v[i], _ = strconv.Atoi(m[i+1])
			}
			if len(c.versions) > 0 && !older(v, last) {
				return c, fmt.Errorf("CHANGELOG.md:%d: %s is not older than %s above it", n, line, c.versions[len(c.versions)-1])
			}
			last = v
			c.versions = append(c.versions, fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]))
		case strings.HasPrefix(line, "### "):
			kind := strings.TrimPrefix(line, "### ")
			ok := false
			for _, k := range kinds {
				ok = ok || k == kind
			}
			if !ok {
				return c, fmt.Errorf("CHANGELOG.md:%d: %q is no kind of change (%s)", n, kind, strings.Join(kinds, ", "))
			}
		}
	}
	return c, sc.Err()
}

func older(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// checkChangelog is the rule that ties a build's version to the
// changelog (docs/decisions.md, "A release has its changelog section"):
// a release's version must be the newest section, so the notes of what a
// person installs are the ones at the top; a development build needs an
// [Unreleased] section for the changes it carries.
func checkChangelog(data []byte, version string) error {
	c, err := parseChangelog(data)
	if err != nil {
		return err
	}
	m := releaseVersion.FindStringSubmatch(version)
	if m == nil {
		if !c.unreleased {
			return fmt.Errorf("CHANGELOG.md has no ## [Unreleased] section for the changes of development build %s", version)
		}
		return nil
	}
	want := strings.TrimPrefix(version, "v")
	if len(c.versions) == 0 || c.versions[0] != want {
		newest := "none"
		if len(c.versions) > 0 {
			newest = c.versions[0]
		}
		return fmt.Errorf("release %s has no section in CHANGELOG.md (its newest is %s): move the [Unreleased] entries under ## [%s] - YYYY-MM-DD and tag that commit", version, newest, want)
	}
	return nil
}

// checkVersionLine is the other half of the rule for a release: the
// binary built says the version the archive is named after, which Go
// stamps from the tag only in a clean checkout (not a linked worktree,
// not -buildvcs=false).
func checkVersionLine(prog string, out []byte, version string) error {
	got := strings.TrimSpace(string(out))
	if want := prog + " version " + version; got != want {
		return fmt.Errorf("%s --version says %q, not %q: build a release from a clean checkout of its tag", prog, got, want)
	}
	return nil
}
