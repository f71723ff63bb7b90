package git

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestFsmonitorQuery checks that the hook's answer is passed on only when
// its token is a clock of the same watchman instance and root as the
// index's, that any other answer becomes "everything changed", and that a
// failing hook or an unknown interface version fails the query (git then
// checks every file).
func TestFsmonitorQuery(t *testing.T) {
	hook := filepath.Join(t.TempDir(), "hook")
	script := "#!/bin/sh\n[ \"$1\" = 2 ] || exit 3\nprintf 'c:10:20:1:99\\000a.txt\\000b/c.txt\\000'\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return hook }
	for _, tc := range []struct {
		old, want string
		code      int
	}{
		{"c:10:20:1:50", "c:10:20:1:99\x00a.txt\x00b/c.txt\x00", 0},
		{"c:11:20:1:50", "c:10:20:1:99\x00/\x00", 0}, // watchman restarted
		{"c:10:20:2:50", "c:10:20:1:99\x00/\x00", 0}, // root watched again
		{"builtin:fake", "c:10:20:1:99\x00/\x00", 0},
		{"", "c:10:20:1:99\x00/\x00", 0},
	} {
		var out bytes.Buffer
		code := FsmonitorQuery(context.Background(), []string{"2", tc.old}, getenv, nil, &out, &bytes.Buffer{})
		if code != tc.code || out.String() != tc.want {
			t.Errorf("token %q: exit %d, %q; want %d, %q", tc.old, code, out.String(), tc.code, tc.want)
		}
	}
	var out bytes.Buffer
	if code := FsmonitorQuery(context.Background(), []string{"1", "5"}, getenv, nil, &out, &out); code == 0 {
		t.Errorf("version 1 answered")
	}
	if code := FsmonitorQuery(context.Background(), []string{"2", "c:1:2:3:4"}, func(string) string { return "exit 1" }, nil, &out, &out); code == 0 {
		t.Errorf("a failing hook answered")
	}
	if code := FsmonitorQuery(context.Background(), []string{"2", "c:1:2:3:4"}, func(string) string { return "" }, nil, &out, &out); code == 0 {
		t.Errorf("no hook answered")
	}
}
