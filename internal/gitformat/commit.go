package gitformat

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// Commit is a commit as its body holds it: one person as both author and
// committer, both at one time, in UTC.
type Commit struct {
	Tree    string
	Parents []string
	Who     string // "name <email>"
	At      time.Time
	Message string
}

// Body is the commit object `git commit-tree` writes for c: the body a
// caller hashes and stores itself, in a pack beside the commit's trees
// (a capture's group of checkpoints), where commit-tree would be one more
// process for each. TestCommitBodyAgreesWithCommitTree keeps the two
// the same.
func (c Commit) Body() []byte {
	var b strings.Builder
	b.WriteString("tree " + c.Tree + "\n")
	for _, p := range c.Parents {
		b.WriteString("parent " + p + "\n")
	}
	who := c.Who + " " + strconv.FormatInt(c.At.Unix(), 10) + " +0000\n"
	b.WriteString("author " + who + "committer " + who + "\n" + c.Message)
	return []byte(b.String())
}

// ParseCommit reads a commit object's body: its tree, parents and
// message (Who and At are left unset: nothing here reads them back).
// TestCommitBodyAgreesWithCommitTree reads what git commit-tree wrote.
func ParseCommit(body []byte) (Commit, error) {
	head, msg, ok := strings.Cut(string(body), "\n\n")
	if !ok {
		return Commit{}, errors.New("a commit without a message")
	}
	c := Commit{Message: msg}
	for _, line := range strings.Split(head, "\n") {
		if t, ok := strings.CutPrefix(line, "tree "); ok {
			c.Tree = t
		} else if p, ok := strings.CutPrefix(line, "parent "); ok {
			c.Parents = append(c.Parents, p)
		}
	}
	if c.Tree == "" {
		return Commit{}, errors.New("a commit without a tree")
	}
	return c, nil
}
