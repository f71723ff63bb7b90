package cli

import (
	"runtime/debug"
	"testing"
)

// TestVersion checks each source of the version, in the order it is
// preferred: the module's version, the commit, nothing.
func TestVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"installed at a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: vcs("vcs.revision", rev)}, true, "v1.2.0"},
		{"built in a checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261101120000-0123456789ab+dirty"}}, true, "v0.0.0-20261101120000-0123456789ab+dirty"},
		{"devel with a commit", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", rev, "vcs.modified", "false")}, true, "devel 0123456789ab"},
		{"devel with changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs", "git", "vcs.revision", rev, "vcs.modified", "true")}, true, "devel 0123456789ab modified"},
		{"devel without version control", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
		{"no build info", nil, false, "devel"},
	} {
		if got := version(tc.info, tc.ok); got != tc.want {
			t.Errorf("%s: version = %q, want %q", tc.name, got, tc.want)
		}
	}
}
