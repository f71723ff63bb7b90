package dist

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstallCompletions: `make install` lays the completion scripts out
// under PREFIX as the release archives do (the one list, completions),
// and `make uninstall` takes them away again; the README says so.
func TestInstallCompletions(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	prefix := t.TempDir()
	// The Makefile's own recipe, without building: the binaries are
	// not what this test is about.
	out, err := exec.Command("make", "-C", "../..", "-n", "install", "PREFIX="+prefix).CombinedOutput()
	if err != nil {
		t.Fatalf("make -n install: %v\n%s", err, out)
	}
	var line string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "-completions") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("make install installs no completion scripts:\n%s", out)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-completions", prefix}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("dist -completions: exit %d: %s", code, stderr.String())
	}
	var want, got []string
	for _, f := range completions() {
		want = append(want, f.name)
		data, err := os.ReadFile(filepath.Join(prefix, f.name))
		if err != nil || !bytes.Equal(data, f.data) {
			t.Errorf("%s: not installed as the archive has it (%v)", f.name, err)
		}
	}
	filepath.WalkDir(prefix, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(prefix, p)
			got = append(got, rel)
		}
		return nil
	})
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("installed %v, want %v", got, want)
	}
	if code := Main([]string{"-completions", prefix, "-remove"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("dist -completions -remove: exit %d: %s", code, stderr.String())
	}
	for _, f := range want {
		if _, err := os.Stat(filepath.Join(prefix, f)); err == nil {
			t.Errorf("%s: still there after -remove", f)
		}
	}
	readme, _ := os.ReadFile("../../README.md")
	if bytes.Contains(readme, []byte("no completion\nscripts")) || !bytes.Contains(readme, []byte("share/fish/vendor_completions.d")) {
		t.Errorf("the README does not say what make install installs")
	}
}
