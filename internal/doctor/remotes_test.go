package doctor

import "testing"

func TestPushesCheckpoints(t *testing.T) {
	for spec, want := range map[string]bool{
		"refs/heads/*:refs/heads/*":             false,
		"+refs/heads/main:refs/heads/main":      false,
		"refs/*:refs/*":                         true,
		"+refs/*:refs/*":                        true,
		"refs/checkpoints/*:refs/checkpoints/*": true,
		"refs/checkpoints":                      true,
		"refs/checkpoints/main/1":               true,
		"refs/check*":                           true,
		"refs/checkpointsx/*":                   false,
		"^refs/checkpoints/*":                   false, // a negative refspec only excludes
		"*:*":                                   true,
		"HEAD":                                  false,
	} {
		if got := pushesCheckpoints(spec); got != want {
			t.Errorf("pushesCheckpoints(%q) = %v, want %v", spec, got, want)
		}
	}
}
