package store

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutPrompt(t *testing.T) {
	if got := CutPrompt("fix the cache"); got != "fix the cache" {
		t.Errorf("a short prompt changed: %q", got)
	}
	exact := strings.Repeat("a", MaxPrompt)
	if got := CutPrompt(exact); got != exact {
		t.Errorf("a prompt of exactly MaxPrompt bytes was cut")
	}
	long := strings.Repeat("é", MaxPrompt) // 2 bytes each
	got := CutPrompt(long)
	if len(got) > MaxPrompt {
		t.Errorf("cut prompt is %d bytes, over %d", len(got), MaxPrompt)
	}
	if !utf8.ValidString(got) {
		t.Errorf("cut prompt is not valid UTF-8")
	}
	if !strings.HasPrefix(got, "éé") || !strings.HasSuffix(got, " […cut: 8192 bytes in all]") {
		t.Errorf("cut prompt = ...%q", got[len(got)-40:])
	}
}
