package dist

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChangelogRule: a release (vX.Y.Z, a clean tag) is built only when
// CHANGELOG.md's newest section is its version; any other build needs an
// [Unreleased] section; a changelog out of Keep a Changelog's shape is
// refused whatever is built.
func TestChangelogRule(t *testing.T) {
	const released = "# Changelog\n\n## [Unreleased]\n\n## [1.2.0] - 2026-03-01\n### Added\n- x\n\n## [1.1.0] - 2026-01-01\n### Fixed\n- y\n"
	for _, tc := range []struct {
		name, log, version, err string
	}{
		{"release, newest section", released, "v1.2.0", ""},
		{"release, no section", released, "v1.3.0", "release v1.3.0 has no section in CHANGELOG.md (its newest is 1.2.0)"},
		{"release, an older section", released, "v1.1.0", "its newest is 1.2.0"},
		{"release, nothing released", "# Changelog\n\n## [Unreleased]\n### Added\n- x\n", "v0.1.0", "its newest is none"},
		{"development build", released, "v1.2.0-3-gabc1234", ""},
		{"dirty tag", released, "v1.2.0-dirty", ""},
		{"no tag", released, "c324fa0", ""},
		{"development build, no Unreleased", "# Changelog\n\n## [1.2.0] - 2026-03-01\n", "c324fa0", "no ## [Unreleased] section"},
		{"Unreleased after a version", "## [1.2.0] - 2026-03-01\n## [Unreleased]\n", "c324fa0", "[Unreleased] comes once, before every version"},
		{"versions out of order", "## [Unreleased]\n## [1.1.0] - 2026-01-01\n## [1.2.0] - 2026-03-01\n", "v1.1.0", "is not older than 1.1.0"},
		{"a heading without a date", "## [Unreleased]\n## [1.2.0]\n", "v1.2.0", "is neither"},
		{"an unknown kind", "## [Unreleased]\n### Improved\n", "devel", `"Improved" is no kind of change`},
	} {
		err := checkChangelog([]byte(tc.log), tc.version)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
		}
	}
}

// TestVersionLineOfARelease: a release's binary must say the version the
// archive is named after; one built without version control says devel.
func TestVersionLineOfARelease(t *testing.T) {
	if err := checkVersionLine("git-checkpoint", []byte("git-checkpoint version v1.2.0\n"), "v1.2.0"); err != nil {
		t.Error(err)
	}
	for _, out := range []string{"git-checkpoint version devel\n", "git-checkpoint version v1.2.0+dirty\n", "git-checkpoint version v1.2.1\n"} {
		if err := checkVersionLine("git-checkpoint", []byte(out), "v1.2.0"); err == nil {
			t.Errorf("%q accepted for v1.2.0", out)
		}
	}
}

// TestOurChangelog: the repository's own CHANGELOG.md has the shape the
// rule reads and an [Unreleased] section, so a development `make dist`
// builds; and Build refuses a release the changelog does not name
// before it builds anything.
func TestOurChangelog(t *testing.T) {
	data, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkChangelog(data, "devel"); err != nil {
		t.Fatal(err)
	}
	c, _ := parseChangelog(data)
	refused := "v999.0.0"
	out := filepath.Join(t.TempDir(), "dist")
	_, err = Build(context.Background(), Options{Src: "../..", Out: out, Version: refused, Targets: Targets, Go: "false", Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "release "+refused+" has no section") {
		t.Fatalf("a release the changelog does not name: %v (its versions: %q)", err, c.versions)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused release made %s", out)
	}
}
