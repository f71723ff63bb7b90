package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// RefUpdate moves one ref, as a compare-and-swap: git changes it only when
// it still has the value the caller last saw (Old), or does not exist
// (Create), so that two writers never lose each other's update.
type RefUpdate struct {
	Ref string
	// New is the object the ref is to name; "" deletes the ref.
	New string
	// Old is the value the ref must have now. It is required unless
	// Create is set.
	Old string
	// Create says the ref must not exist yet; it stands in for Old, and
	// New must then be a full object id (the "no ref" value git compares
	// with is that many zeros).
	Create bool
	// Reason is the reflog message (-m).
	Reason string
	// CreateReflog starts a reflog for the ref if it has none.
	CreateReflog bool
	// NoDeref updates a symbolic ref (HEAD) itself rather than the ref it
	// points to.
	NoDeref bool
}

// expected returns the old value git is to compare with.
func (u RefUpdate) expected() (string, error) {
	switch {
	case u.Ref == "":
		return "", errors.New("git update-ref: no ref named")
	case u.Create && u.Old != "":
		return "", fmt.Errorf("git update-ref %s: both an old value and \"must not exist\"", u.Ref)
	case u.Create && u.New == "":
		return "", fmt.Errorf("git update-ref %s: a ref that must not exist cannot be deleted", u.Ref)
	case u.Create:
		return strings.Repeat("0", len(u.New)), nil
	case u.Old == "":
		return "", fmt.Errorf("git update-ref %s: no expected old value", u.Ref)
	}
	return u.Old, nil
}

// flags are the options that apply to a whole update-ref call.
func (u RefUpdate) flags() []string {
	var args []string
	if u.CreateReflog {
		args = append(args, "--create-reflog")
	}
	if u.Reason != "" {
		args = append(args, "-m", u.Reason)
	}
	if u.NoDeref {
		args = append(args, "--no-deref")
	}
	return args
}

// UpdateRef applies one update with `git update-ref`, which fails when
// the ref's value is not the expected one.
func (r *Runner) UpdateRef(ctx context.Context, u RefUpdate) error {
	old, err := u.expected()
	if err != nil {
		return err
	}
	done := r.Written.Begin()
	ok := r.refs.update(u, old)
	if ok {
		r.wroteRefs([]RefUpdate{u}, nil)
	}
	done()
	if ok {
		return nil
	}
	args := append([]string{"update-ref"}, u.flags()...)
	if u.New == "" {
		args = append(args, "-d", u.Ref, old)
	} else {
		args = append(args, u.Ref, u.New, old)
	}
	_, err = r.Run(ctx, Cmd{Args: args, Named: true})
	r.wroteRefs([]RefUpdate{u}, err)
	return err
}

// wroteRefs records in r.Written the refs updates made or moved. A
// failure, or a deletion (which may rewrite packed-refs), is not named.
func (r *Runner) wroteRefs(updates []RefUpdate, err error) {
	if err != nil {
		r.Written.Anywhere("git update-ref failed")
		return
	}
	for _, u := range updates {
		if u.New == "" {
			r.Written.Anywhere("a deleted ref, which may rewrite packed-refs")
			return
		}
		r.Written.Refs(u.Ref)
	}
}

// UpdateRefs applies updates in one `git update-ref --stdin -z`
// transaction: all of them or, when one ref does not have its expected
// value, none. Reason, CreateReflog and NoDeref apply to the whole
// transaction, so every update must give the same ones.
func (r *Runner) UpdateRefs(ctx context.Context, updates []RefUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	var in strings.Builder
	first := updates[0]
	for _, u := range updates {
		old, err := u.expected()
		if err != nil {
			return err
		}
		if u.Reason != first.Reason || u.CreateReflog != first.CreateReflog || u.NoDeref != first.NoDeref {
			return fmt.Errorf("git update-ref --stdin: %s and %s ask for different options", first.Ref, u.Ref)
		}
		fields := []string{"update", u.Ref, u.New, old}
		switch {
		case u.New == "":
			fields = []string{"delete", u.Ref, old}
		case u.Create:
			fields = []string{"create", u.Ref, u.New}
		}
		for _, f := range fields[1:] {
			if strings.IndexByte(f, 0) >= 0 {
				return fmt.Errorf("git update-ref --stdin: %q holds a NUL byte", f)
			}
		}
		// -z: the command and ref end with a NUL, and so does each value.
		in.WriteString(strings.Join(fields[:2], " ") + "\x00" + strings.Join(fields[2:], "\x00") + "\x00")
	}
	args := append(append([]string{"update-ref"}, first.flags()...), "--stdin", "-z")
	_, err := r.Run(ctx, Cmd{Args: args, Stdin: []byte(in.String()), Named: true})
	r.wroteRefs(updates, err)
	return err
}

// Ref is a ref and the object it names.
type Ref struct{ Name, OID string }

// ForEachRef lists the refs that match patterns (for-each-ref's: a prefix
// or a glob), in git's order. A ref name holds neither a NUL nor a newline
// (check-ref-format), so one line per ref, the name ended by a NUL, is
// safe to parse.
func (r *Runner) ForEachRef(ctx context.Context, patterns ...string) ([]Ref, error) {
	out, err := r.Run(ctx, Cmd{Args: append([]string{"for-each-ref", "--format=%(refname)%00%(objectname)"}, patterns...)})
	if err != nil {
		return nil, err
	}
	return parseRefs(out)
}

func parseRefs(out []byte) ([]Ref, error) {
	var refs []Ref
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		name, oid, ok := strings.Cut(line, "\x00")
		if !ok {
			return nil, fmt.Errorf("git for-each-ref: unexpected line %q", line)
		}
		refs = append(refs, Ref{Name: name, OID: oid})
	}
	return refs, nil
}
