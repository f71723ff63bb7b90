package cli

import (
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

func TestRuns(t *testing.T) {
	for _, tc := range []struct {
		ns   []int
		want string
	}{
		{nil, ""},
		{[]int{4}, "k4"},
		{[]int{1, 2}, "k1 k2"},
		{[]int{3, 1, 2}, "k1..k3"},
		{[]int{1, 2, 3, 5, 7, 8, 9, 10, 12, 13}, "k1..k3 k5 k7..k10 k12 k13"},
	} {
		var recs []*store.Record
		for _, n := range tc.ns {
			recs = append(recs, &store.Record{N: n})
		}
		if got := runs(recs); got != tc.want {
			t.Errorf("runs(%v) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}
