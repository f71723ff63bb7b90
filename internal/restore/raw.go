package restore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// rawFile is an entry of a raw overlay tree (see capture/raw.go): a file
// whose bytes a checkout of the checkpoint's tree would not give back.
type rawFile struct{ mode, oid string }

// loadRaw reads an overlay tree; "" is an empty overlay.
func loadRaw(ctx context.Context, r *git.Runner, tree string) (map[string]rawFile, error) {
	m := map[string]rawFile{}
	if tree == "" {
		return m, nil
	}
	entries, err := r.LsTree(ctx, tree, git.LsTreeOptions{Recursive: true})
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		m[e.Path] = rawFile{mode: e.Mode, oid: e.OID}
	}
	return m, nil
}

// addRaw completes the plan with the raw overlays of the current tree
// (currentRaw) and of the target: each file to write takes the target's
// raw bytes when it has them (and its current raw bytes when put back),
// and a path whose bytes differ only in the overlays (a file that went
// from CRLF to LF, which git stores the same) is added to the plan. The
// plan's id changes with them.
func (p *Plan) addRaw(ctx context.Context, r *git.Runner, currentRaw string) error {
	if currentRaw == "" && p.Target.Raw == "" {
		return nil
	}
	cur, err := loadRaw(ctx, r, currentRaw)
	if err != nil {
		return err
	}
	tgt, err := loadRaw(ctx, r, p.Target.Raw)
	if err != nil {
		return err
	}
	planned := map[string]bool{}
	for i := range p.Files {
		f := &p.Files[i]
		planned[f.Path] = true
		if f.Mode != git.AbsentMode {
			f.Raw = tgt[f.Path].oid
		}
		if f.OldMode != git.AbsentMode {
			f.OldRaw = cur[f.Path].oid
		}
	}
	for _, l := range p.Left {
		planned[l.Path] = true
	}
	var extra []string
	for path := range union(cur, tgt) {
		if !planned[path] && cur[path] != tgt[path] && Under(path, p.Options.Paths) {
			extra = append(extra, path)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	// Their entries are the same in both trees: read them from the target.
	entries, err := r.LsTree(ctx, p.Target.Tree, git.LsTreeOptions{FullTree: true, Paths: extra})
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type != "blob" {
			continue
		}
		p.Files = append(p.Files, File{Path: e.Path, Change: Modify, Class: "unattributed",
			OldMode: e.Mode, Mode: e.Mode, OldOID: e.OID, OID: e.OID, Raw: tgt[e.Path].oid, OldRaw: cur[e.Path].oid})
	}
	slices.SortFunc(p.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	p.ID = p.digest()
	return nil
}

func union(a, b map[string]rawFile) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// writeRaw replaces staged files with the raw bytes their File names, read
// in one `cat-file --batch`: what was on disk when the checkpoint was
// taken, which a checkout of the canonical blob would not give back.
func (a *Applier) writeRaw(ctx context.Context, staged map[string]string, writes []File) error {
	var raw []File
	var ids []string
	for _, f := range writes {
		if f.Raw != "" {
			raw = append(raw, f)
			ids = append(ids, f.Raw)
		}
	}
	if len(raw) == 0 {
		return nil
	}
	objs, err := a.Git.CatFile(ctx, ids)
	if err != nil {
		return err
	}
	for i, f := range raw {
		if objs[i].Type != "blob" {
			return fmt.Errorf("cannot read the raw bytes of %s: %s is not a blob", f.Path, f.Raw)
		}
		mode := os.FileMode(0o644)
		if f.Mode == "100755" {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(staged[f.Path]), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(staged[f.Path], objs[i].Body, mode); err != nil {
			return err
		}
	}
	return nil
}
