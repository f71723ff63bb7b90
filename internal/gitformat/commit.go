package gitformat

import (
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
