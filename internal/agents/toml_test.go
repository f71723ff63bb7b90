package agents

import (
	"slices"
	"strings"
	"testing"
)

func TestNotifyRoundTrip(t *testing.T) {
	cases := map[string]struct {
		src     string
		chained []string
	}{
		"none":      {"", nil},
		"no notify": {"model = \"o3\"\n[tui]\nnotifications = true\n", nil},
		"one line":  {"notify = [\"a\", 'b c']\nmodel = 1\n", []string{"a", "b c"}},
		"multiline": {"# top\nx = \"\"\"\nnotify = [\"not this\"]\n\"\"\"\nnotify = [\n  \"p\\\"q\", # c\n  'r',\n]\n[t]\nnotify = [\"nor this\"]\n", []string{`p"q`, "r"}},
		"in table":  {"[t]\nnotify = [\"x\"]\n", nil},
		"quoted":    {"\"notify\" = [\"\\u00e9t\\u00e9\"]\r\n", []string{"été"}},
		"dotted":    {"notify.x = [\"no\"]\n", nil},
		"crlf":      {"a = 1\r\nnotify = [\"n\"]\r\nb = 2\r\n", []string{"n"}},
	}
	for name, c := range cases {
		out, chained, err := installNotify(c.src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !slices.Equal(chained, c.chained) {
			t.Errorf("%s: chained %q, want %q", name, chained, c.chained)
		}
		if !strings.Contains(out, notifyLine(c.chained)) {
			t.Errorf("%s: no notify line:\n%s", name, out)
		}
		again, _, err := installNotify(out)
		if err != nil || again != out {
			t.Errorf("%s: a second install changed the file (%v):\n%s", name, err, again)
		}
		back, ok := uninstallNotify(out)
		if !ok || back != c.src {
			t.Errorf("%s: uninstall did not restore the bytes:\n got %q\nwant %q", name, back, c.src)
		}
	}
	for _, bad := range []string{"notify = \"x\"\n", "notify = [1, 2]\n", "notify = [\"x\"\n", "notify = ['''a''']\n", "= 3\n"} {
		if _, _, err := installNotify(bad); err == nil {
			t.Errorf("installNotify(%q) accepted it", bad)
		}
	}
}

func TestShellScript(t *testing.T) {
	for src, want := range map[string]bool{
		"#!/bin/sh\n": true, "#!/usr/bin/env bash\n": true, "#! /bin/bash -e\n": true, "echo\n": true,
		"#!/usr/bin/env python3\n": false, "#!/usr/bin/env -S sh -e\n": false, "#!/bin/shell\n": false,
	} {
		if got := shellScript([]byte(src)); got != want {
			t.Errorf("shellScript(%q) = %v", src, got)
		}
	}
}

func FuzzNotify(f *testing.F) {
	f.Add("notify = [\"a\", 'b']\n[t]\nx = 1\n")
	f.Add("x = \"\"\"\nnotify\n\"\"\"\n")
	f.Fuzz(func(t *testing.T, src string) {
		out, _, err := installNotify(src)
		if err != nil {
			return
		}
		if back, ok := uninstallNotify(out); !ok || (back != src && strings.HasSuffix(src, "\n")) {
			if !strings.Contains(src, "# >>> git-checkpoint") && !strings.Contains(src, "#| ") {
				t.Fatalf("not restored:\n%q\n%q", src, back)
			}
		}
	})
}
