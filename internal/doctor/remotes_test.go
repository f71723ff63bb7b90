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
		"refs/checkpoints/stores/*":             true,
		"refs/checkpoints/st*":                  true,
		"refs/checkpoints/*/records":            true,
		"refs/checkpoints/wt-*":                 true,
	} {
		if got := pushesCheckpoints(spec); got != want {
			t.Errorf("pushesCheckpoints(%q) = %v, want %v", spec, got, want)
		}
	}
}

func TestFetchesCheckpoints(t *testing.T) {
	for spec, want := range map[string]bool{
		"+refs/heads/*:refs/remotes/origin/*":                      false,
		"+refs/*:refs/*":                                           true,
		"+refs/checkpoints/stores/*:refs/checkpoints/stores/*":     true,
		"refs/checkpoints/*:refs/remotes/origin/checkpoints/*":     false, // written elsewhere
		"refs/checkpoints/stores/*":                                false, // no destination: no ref written
		"^refs/checkpoints/*":                                      false,
		"+refs/heads/main:refs/checkpoints/main/1":                 true,
		"+refs/tags/*:refs/tags/*":                                 false,
		"+refs/heads/*:refs/checkpoints/stores/0123456789abcdef/*": true,
	} {
		if got := fetchesCheckpoints(spec); got != want {
			t.Errorf("fetchesCheckpoints(%q) = %v, want %v", spec, got, want)
		}
	}
}
