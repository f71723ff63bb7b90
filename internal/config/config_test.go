package config

import (
	"reflect"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"1k", 1 << 10, true},
		{"1K", 1 << 10, true},
		{"50m", 50 << 20, true},
		{"2g", 2 << 30, true},
		{"512M", 512 << 20, true},
		{"", 0, false},
		{"k", 0, false},
		{"-1", 0, false},
		{"1.5m", 0, false},
		{"10x", 0, false},
		{"1t", 0, false},
		{"9223372036854775807", 9223372036854775807, true},
		{"99999999999g", 0, false}, // overflows int64
		{"9007199254740992k", 0, false},
	} {
		got, err := ParseBytes(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// FormatBytes writes what ParseBytes reads back, with the largest whole
// suffix.
func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1: "1", 1000: "1000", 1 << 10: "1k", 1536: "1536",
		32 << 10: "32k", 1 << 20: "1m", 3 << 29: "1536m", 4 << 30: "4g"} {
		got := FormatBytes(n)
		if back, err := ParseBytes(got); got != want || err != nil || back != n {
			t.Errorf("FormatBytes(%d) = %q (read back as %d, %v); want %q", n, got, back, err, want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"14d", 14 * 24 * time.Hour, true},
		{"0d", 0, true},
		{"10s", 10 * time.Second, true},
		{"1h30m", 90 * time.Minute, true},
		{"", 0, false},
		{"d", 0, false},
		{"-1d", 0, false},
		{"-5s", 0, false},
		{"1.5d", 0, false},
		{"soon", 0, false},
	} {
		got, err := ParseDuration(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestSet(t *testing.T) {
	c := Default()
	for key, val := range map[string]string{
		"maxfilebytes": "1m", "maxtotalbytes": "2g", "keep": "7", "keepremote": "3", "keepfor": "3d",
		"keepsafety": "1h", "locktimeout": "2s", "hooktimeout": "5s", "fsmonitor": "yes", "enabled": "off", "recordprompts": "false",
		"packevery":  "0",
		"unknownkey": "ignored",
	} {
		if err := c.set(key, val); err != nil {
			t.Fatalf("set(%s, %s): %v", key, val, err)
		}
	}
	want := Config{MaxFileBytes: 1 << 20, MaxTotalBytes: 2 << 30, Keep: 7, KeepRemote: 3, KeepFor: 72 * time.Hour,
		KeepSafety: time.Hour, LockTimeout: 2 * time.Second, HookTimeout: 5 * time.Second, Fsmonitor: true}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("after set: %+v, want %+v", c, want)
	}
	for key, val := range map[string]string{"keep": "many", "keepremote": "-1", "packevery": "-2", "enabled": "maybe", "locktimeout": "forever", "maxfilebytes": "-1"} {
		if err := c.set(key, val); err == nil {
			t.Errorf("set(%s, %q) accepted a bad value", key, val)
		}
	}
	if err := c.set("keep", "-1"); err == nil {
		t.Errorf("set(keep, -1) accepted a negative count")
	}
}
