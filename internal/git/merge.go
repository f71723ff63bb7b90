package git

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MergeRequest is a three-way merge of trees: the changes from Base to
// Theirs applied on top of Ours.
type MergeRequest struct {
	Base, Ours, Theirs string // trees
}

// MergeResult is what git's own merge made of a MergeRequest.
type MergeResult struct {
	// Tree is the merged tree; with conflicts it holds git's conflict
	// markers and is not meant to be written anywhere.
	Tree string
	// Conflicts are the paths that did not merge cleanly, each once, in
	// git's order.
	Conflicts []string
	// Messages are git's informational and conflict messages.
	Messages []MergeMessage
}

// MergeMessage is one of merge-tree's messages: the paths it is about, a
// stable type ("Auto-merging", "CONFLICT (contents)") and git's words.
type MergeMessage struct {
	Paths []string
	Type  string
	Text  string
}

// throwaway is the identity and date of the commits MergeTree makes only
// to name the merge base: fixed, so that the same trees give the same
// commits (and the same objects) every time.
var throwaway = append(slices.Clone(Identity),
	"GIT_AUTHOR_DATE=1970-01-01T00:00:00Z", "GIT_COMMITTER_DATE=1970-01-01T00:00:00Z")

// MergeTree merges with `git merge-tree --write-tree`, which writes no
// index and no working tree. Before git 2.40 it has no --merge-base and
// finds the base itself from commits, so the trees are first made into
// commits whose only common ancestor is the base: a root commit of Base,
// and Ours and Theirs each with it as their parent. Nothing refers to
// these commits; gc may take them. Exit status 1 is git's answer
// "conflicts", not a failure.
func (r *Runner) MergeTree(ctx context.Context, req MergeRequest) (*MergeResult, error) {
	base, err := r.CommitTree(ctx, CommitRequest{Tree: req.Base, Message: "merge base\n", Env: throwaway})
	if err != nil {
		return nil, err
	}
	var heads [2]string
	for i, tree := range []string{req.Ours, req.Theirs} {
		if heads[i], err = r.CommitTree(ctx, CommitRequest{Tree: tree, Parents: []string{base}, Message: "merge side\n", Env: throwaway}); err != nil {
			return nil, err
		}
	}
	// -z: paths byte for byte; --name-only: one line per conflicted path
	// rather than one per stage; --messages: the messages even when the
	// merge is clean, so the output has one shape.
	out, err := r.Run(ctx, Cmd{Args: []string{"merge-tree", "--write-tree", "-z", "--name-only", "--messages", heads[0], heads[1]}})
	conflicted := ExitCode(err) == 1
	if err != nil && !conflicted {
		return nil, err
	}
	res, perr := parseMergeTree(out, conflicted)
	if perr != nil {
		return nil, perr
	}
	return res, nil
}

// parseMergeTree reads the -z --name-only --messages output of
// `merge-tree --write-tree`: the tree, then (with conflicts) each
// conflicted path, an empty record, and the messages, each as the number
// of its paths, the paths, its type and its text.
func parseMergeTree(out []byte, conflicted bool) (*MergeResult, error) {
	recs := strings.Split(string(out), "\x00")
	bad := func(what string) error {
		return fmt.Errorf("git merge-tree: unexpected output (%s): %q", what, clip(string(out)))
	}
	if len(recs) == 0 || !isHex(recs[0]) {
		return nil, bad("no tree")
	}
	res := &MergeResult{Tree: recs[0]}
	recs = recs[1:]
	if conflicted {
		seen := map[string]bool{}
		for len(recs) > 0 && recs[0] != "" {
			if !seen[recs[0]] {
				seen[recs[0]] = true
				res.Conflicts = append(res.Conflicts, recs[0])
			}
			recs = recs[1:]
		}
		if len(recs) == 0 {
			return nil, bad("no end of the conflicted paths")
		}
		recs = recs[1:]
		if len(res.Conflicts) == 0 {
			return nil, bad("conflicts without paths")
		}
	} else if len(recs) > 0 && recs[0] == "" {
		recs = recs[1:]
	}
	for len(recs) > 0 && recs[0] != "" {
		n, err := strconv.Atoi(recs[0])
		if err != nil || n < 0 || len(recs) < n+3 {
			return nil, bad("a message")
		}
		m := MergeMessage{Paths: append([]string(nil), recs[1:1+n]...), Type: recs[1+n], Text: strings.TrimSuffix(recs[2+n], "\n")}
		res.Messages = append(res.Messages, m)
		recs = recs[3+n:]
	}
	return res, nil
}

func isHex(s string) bool {
	if len(s) < 40 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
