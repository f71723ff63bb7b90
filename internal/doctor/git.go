package doctor

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// minGit is the oldest git with everything the tool runs (rev-parse
// --path-format, update-ref --stdin transactions).
var minGit = [2]int{2, 31}

func (d *Doctor) checkGit(ctx context.Context) ([]Check, error) {
	out, err := d.Git.Run(ctx, git.Cmd{Args: []string{"version"}})
	if err != nil {
		return nil, err
	}
	v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "git version "))
	f := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == ' ' })
	ok := false
	if len(f) >= 2 {
		major, _ := strconv.Atoi(f[0])
		minor, _ := strconv.Atoi(f[1])
		ok = major > minGit[0] || (major == minGit[0] && minor >= minGit[1])
	}
	ch := Check{Name: "git", OK: ok, Message: "git " + v}
	if !ok {
		ch.Message += fmt.Sprintf(", older than %d.%d, which git-checkpoint needs", minGit[0], minGit[1])
		ch.Fix = "upgrade git"
	}
	return []Check{ch}, nil
}
