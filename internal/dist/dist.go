// Package dist builds the release archives of `make dist`: for each
// target system, a .tar.gz holding both binaries, the man pages, the
// completion scripts, the README and CHANGELOG (and LICENSE when there
// is one), laid
// out as under an install prefix, and a SHA256SUMS file over them.
//
// The archives are reproducible: the same source gives the same bytes
// wherever and whenever it is built. The binaries are built with
// -trimpath (no build directory in them) and an empty build id, without
// cgo; the tar entries are sorted, with one fixed time, owner root and
// fixed modes; gzip records no name and no time.
package dist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/complete"
)

// Target is a system the archives are built for.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "-" + t.Arch }

// Targets are the systems a release is built for.
var Targets = []Target{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// Options say what to build, from where, to where.
type Options struct {
	Src     string    // the module's top directory
	Out     string    // the directory the archives and SHA256SUMS go to
	Version string    // in the archives' names
	Time    time.Time // every archive entry's time (SOURCE_DATE_EPOCH)
	Targets []Target
	Go      string   // the go command
	Env     []string // its environment
	Log     io.Writer
}

// binaries are the programs in every archive, each with its man page and
// completion; helpers are programs they run, installed beside them.
var (
	binaries = []string{"git-checkpoint", "git-rewind"}
	helpers  = []string{"git-checkpoint-mcp", "git-checkpoint-scan"}
)

// Build writes one archive per target and SHA256SUMS, and returns the
// archives' names.
func Build(ctx context.Context, o Options) ([]string, error) {
	notes, err := os.ReadFile(filepath.Join(o.Src, "CHANGELOG.md"))
	if err != nil {
		return nil, err
	}
	if err := checkChangelog(notes, o.Version); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	var names []string
	sums := map[string]string{}
	for _, t := range o.Targets {
		name := archiveName(o.Version, t)
		fmt.Fprintf(o.Log, "dist: %s\n", name)
		data, err := archive(ctx, o, t, strings.TrimSuffix(name, ".tar.gz"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t, err)
		}
		if err := os.WriteFile(filepath.Join(o.Out, name), data, 0o644); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		sums[name] = hex.EncodeToString(sum[:])
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n) // sha256sum -c reads this
	}
	return names, os.WriteFile(filepath.Join(o.Out, "SHA256SUMS"), []byte(b.String()), 0o644)
}

// archiveName is the name of target t's archive of version.
func archiveName(version string, t Target) string {
	return fmt.Sprintf("git-checkpoint-%s-%s.tar.gz", version, t)
}

// file is one regular file of an archive.
type file struct {
	name string
	mode int64
	data []byte
}

// archive builds t's binaries and packs them with the rest under top/.
func archive(ctx context.Context, o Options, t Target, top string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "git-checkpoint-dist-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	programs := append(slices.Clone(binaries), helpers...)
	args := []string{"build", "-trimpath", "-ldflags=-buildid=", "-o", tmp + string(filepath.Separator)}
	for _, b := range programs {
		args = append(args, "./cmd/"+b)
	}
	cmd := exec.CommandContext(ctx, o.Go, args...)
	cmd.Dir = o.Src
	// No cgo: the binaries need no C library, which also makes them
	// static and cross-compiled like any other target.
	cmd.Env = append(slices.Clone(o.Env), "GOOS="+t.OS, "GOARCH="+t.Arch, "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build: %w", err)
	}
	if releaseVersion.MatchString(o.Version) && t.OS == runtime.GOOS && t.Arch == runtime.GOARCH {
		prog := filepath.Join(tmp, binaries[0])
		out, err := exec.CommandContext(ctx, prog, "--version").Output()
		if err != nil {
			return nil, fmt.Errorf("%s --version: %w", binaries[0], err)
		}
		if err := checkVersionLine(binaries[0], out, o.Version); err != nil {
			return nil, err
		}
	}
	var files []file
	for _, b := range programs {
		data, err := os.ReadFile(filepath.Join(tmp, b))
		if err != nil {
			return nil, err
		}
		files = append(files, file{"bin/" + b, 0o755, data})
	}
	for _, b := range binaries {
		page, err := os.ReadFile(filepath.Join(o.Src, "man", b+".1"))
		if err != nil {
			return nil, err
		}
		files = append(files, file{"share/man/man1/" + b + ".1", 0o644, page})
	}
	files = append(files, completions()...)
	for _, doc := range []string{"README.md", "CHANGELOG.md", "LICENSE"} {
		data, err := os.ReadFile(filepath.Join(o.Src, doc))
		if os.IsNotExist(err) && doc == "LICENSE" {
			continue
		}
		if err != nil {
			return nil, err
		}
		files = append(files, file{doc, 0o644, data})
	}
	return pack(top, o.Time, files)
}

// completions are the scripts git checkpoint completion prints, where
// each shell looks for them under a prefix, once for each program's name
// (bash-completion, zsh and fish load a completion by the command's name).
func completions() []file {
	var out []file
	for _, b := range binaries {
		bash, _ := complete.Script("bash")
		zsh, _ := complete.Script("zsh")
		fish, _ := complete.Script("fish")
		// zsh's compinit reads the first line of each file of fpath for
		// the commands it completes: each file claims its own.
		zsh = bytes.Replace(zsh, []byte("#compdef git-checkpoint git-rewind\n"), []byte("#compdef "+b+"\n"), 1)
		out = append(out,
			file{"share/bash-completion/completions/" + b, 0o644, bash},
			file{"share/zsh/site-functions/_" + b, 0o644, zsh},
			file{"share/fish/vendor_completions.d/" + b + ".fish", 0o644, fish})
	}
	return out
}

// pack writes files under top/ as a gzipped tar: entries sorted, each
// directory before what it holds, one time, owner root.
func pack(top string, at time.Time, files []file) ([]byte, error) {
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	// zw.Header stays empty: no file name, and a zero time, which gzip
	// writes as "no time".
	tw := tar.NewWriter(zw)
	header := func(name string, mode int64, size int64, typ byte) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: at.UTC().Truncate(time.Second),
			Uname: "root", Gname: "root", Format: tar.FormatUSTAR}
	}
	dirs := map[string]bool{}
	var mkdir func(dir string) error
	mkdir = func(dir string) error {
		if dir == "." || dirs[dir] {
			return nil
		}
		if err := mkdir(path.Dir(dir)); err != nil {
			return err
		}
		dirs[dir] = true
		return tw.WriteHeader(header(dir+"/", 0o755, 0, tar.TypeDir))
	}
	for _, f := range files {
		name := path.Join(top, f.name)
		if err := mkdir(path.Dir(name)); err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(header(name, f.mode, int64(len(f.data)), tar.TypeReg)); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
