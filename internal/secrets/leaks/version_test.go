package leaks

import (
	"os"
	"regexp"
	"testing"
)

// TestVersion: Version is the version of gitleaks go.mod requires, so
// that the scan cache forgets what older rules found when gitleaks is
// upgraded.
func TestVersion(t *testing.T) {
	mod, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatalf("go.mod requires no %s", module)
	}
	if string(m[1]) != Version {
		t.Errorf("go.mod requires %s %s; Version says %s: change it with the upgrade", module, m[1], Version)
	}
}

const module = "github.com/zricethezav/gitleaks/v8"
