package git

import (
	"context"
	"fmt"
	"strings"
)

// LsRemote lists the refs of remote (a remote's name or a URL) under
// prefix, in one `git ls-remote --refs`: one round trip, nothing fetched.
// ls-remote has no -z; its lines are "<oid>\t<name>", and a ref name holds
// neither a tab nor a newline (check-ref-format forbids control
// characters), so they parse safely. git matches the pattern against the
// ends of names, so the prefix is checked again here.
func (r *Runner) LsRemote(ctx context.Context, remote, prefix string) ([]Ref, error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"ls-remote", "--refs", "--", remote, prefix + "*"}})
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		oid, name, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("git ls-remote: unexpected line %q", line)
		}
		if strings.HasPrefix(name, prefix) {
			refs = append(refs, Ref{Name: name, OID: oid})
		}
	}
	return refs, nil
}

// PushUpdate is one ref of a push, a compare-and-swap on the remote: the
// remote ref is set to New ("" deletes it) only while it is Old ("" says
// it must not exist).
type PushUpdate struct{ Ref, New, Old string }

// PushRequest is one `git push`.
type PushRequest struct {
	Remote  string
	Updates []PushUpdate
}

// Push sends updates to the remote in one `git push --atomic`: the remote
// takes all of them or none, so a push that fails or is killed halfway
// leaves the remote as it was. Each ref carries an explicit
// --force-with-lease=<ref>:<old>, which makes the remote refuse the whole
// push when any of them is no longer what the caller saw (another push
// came first) and lets a ref be replaced by a commit that does not descend
// from it. --no-verify: the user's pre-push hook is for their branches
// (and hooks are off anyway, core.hooksPath). Objects the remote already
// has (those reachable from refs it advertises) are not sent again: git's
// own negotiation sees to that.
func (r *Runner) Push(ctx context.Context, req PushRequest) error {
	if len(req.Updates) == 0 {
		return nil
	}
	args := []string{"push", "--atomic", "--no-verify", "--quiet"}
	var specs []string
	for _, u := range req.Updates {
		if !strings.HasPrefix(u.Ref, "refs/") || strings.ContainsAny(u.Ref, ":^~?*[\\ ") {
			return fmt.Errorf("git push: %q is not a full ref name", u.Ref)
		}
		args = append(args, "--force-with-lease="+u.Ref+":"+u.Old)
		specs = append(specs, u.New+":"+u.Ref)
	}
	if r.localRemote(ctx, req.Remote) {
		args = append(args, "--receive-pack=git -c "+fsyncConfig[0]+" -c "+fsyncConfig[1]+" receive-pack")
	}
	args = append(append(args, "--", req.Remote), specs...)
	_, err := r.Run(ctx, Cmd{Args: args})
	return err
}

// localRemote says whether every URL a push to remote (a remote's name or
// a URL) goes to is a repository on this machine (a path, or file://).
// git runs the receiving git of such a push itself, but with none of the
// configuration given to the pushing one (git clears GIT_CONFIG_PARAMETERS
// for a local transport), so it wrote loose objects and refs with the
// remote's own core.fsync, whose default syncs neither: a power loss left
// the remote with empty objects under its new refs (TestPowerLoss, push).
// Push then names the receiving command with the durable configuration.
// Over ssh, git daemon or http the server's configuration is the
// server's: a restricted shell (git-shell, a forge) refuses a command
// with options.
func (r *Runner) localRemote(ctx context.Context, remote string) bool {
	urls := []string{remote}
	if out, err := r.Run(ctx, Cmd{Args: []string{"remote", "get-url", "--push", "--all", remote}}); err == nil {
		urls = strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	for _, u := range urls {
		if !localURL(u) {
			return false
		}
	}
	return len(urls) > 0
}

// localURL is git's reading of a URL as a path on this machine: file://,
// or no scheme and no host: part before the first slash (scp's
// host:path).
func localURL(u string) bool {
	if strings.HasPrefix(u, "file://") {
		return true
	}
	if u == "" || strings.Contains(u, "://") {
		return false
	}
	colon, slash := strings.IndexByte(u, ':'), strings.IndexByte(u, '/')
	return colon < 0 || (slash >= 0 && slash < colon)
}

// Fetch runs `git fetch` of refspecs from remote. It writes no FETCH_HEAD
// (that file is the person's: `git merge FETCH_HEAD` reads it), fetches no
// tags and does not recurse into submodules, so that nothing but the refs
// the refspecs name changes here. A refspec without a destination only
// brings the objects.
func (r *Runner) Fetch(ctx context.Context, remote string, refspecs ...string) error {
	return r.fetch(ctx, remote, false, refspecs)
}

// FetchPrune is Fetch that also deletes the local refs matching a
// refspec's destination whose source the remote no longer has (--prune),
// and only those: the refspecs bound what it may delete.
func (r *Runner) FetchPrune(ctx context.Context, remote string, refspecs ...string) error {
	return r.fetch(ctx, remote, true, refspecs)
}

func (r *Runner) fetch(ctx context.Context, remote string, prune bool, refspecs []string) error {
	args := []string{"fetch", "--quiet", "--no-write-fetch-head", "--no-tags", "--recurse-submodules=no"}
	if prune {
		args = append(args, "--prune")
	}
	args = append(append(args, "--", remote), refspecs...)
	_, err := r.Run(ctx, Cmd{Args: args})
	return err
}

// WriteBlob stores data as a blob and returns its id.
func (r *Runner) WriteBlob(ctx context.Context, data []byte) (string, error) {
	out, err := r.Run(ctx, Cmd{Args: []string{"hash-object", "-w", "--stdin"}, Stdin: data})
	return strings.TrimSpace(string(out)), err
}
