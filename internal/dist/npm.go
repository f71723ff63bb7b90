package dist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The npm names (docs/npm.md): npmName is the package people install,
// npmScope holds one package per target with that target's binaries.
const (
	npmName  = "git-checkpoint"
	npmScope = "@git-checkpoint"
)

// npmFiles are the launcher's JavaScript, as the top package has them.
//
//go:embed npm/install.js npm/lib/*.js
var npmFiles embed.FS

// npmSystem is how Node names a target (process.platform, process.arch),
// which npm matches against a package's os and cpu.
func npmSystem(t Target) (osName, cpu string) {
	cpu = t.Arch
	if cpu == "amd64" {
		cpu = "x64"
	}
	return t.OS, cpu
}

// npmPackage is the name of target t's package, and its directory under
// the -npm directory.
func npmPackage(t Target) (name, dir string) {
	osName, cpu := npmSystem(t)
	return npmScope + "/" + osName + "-" + cpu, osName + "-" + cpu
}

// semver is npm's version syntax (semver.org's regular expression).
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

// npmVersion is version as npm takes it: without the tag's v, and a
// development build that is no semver (a bare commit, "devel") as a
// prerelease of 0.0.0, which npm never picks over a release.
func npmVersion(version string) string {
	v := strings.TrimPrefix(version, "v")
	if semver.MatchString(v) {
		return v
	}
	id := regexp.MustCompile(`[^0-9A-Za-z-]+`).ReplaceAllString(version, "-")
	return "0.0.0-dev-" + id
}

// packageJSON is the part of package.json the packages use, in the
// order npm shows it.
type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license,omitempty"`
	Repository           string            `json:"repository"`
	OS                   []string          `json:"os"`
	CPU                  []string          `json:"cpu,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Man                  []string          `json:"man,omitempty"`
	Scripts              map[string]string `json:"scripts,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
}

// NPM writes the npm packages of a release under dir from the archives
// Build wrote to o.Out (so from the same bytes, not a second build):
// dir/OS-CPU holds each target's archive as it is, with its
// package.json; dir/git-checkpoint is the package people install, which
// depends on all of those optionally (npm installs the one whose os and
// cpu match) and has a Node launcher per program that install.js turns
// into a link to the native one. It returns the directories, top
// package last (publish the others first, docs/npm.md).
func NPM(o Options, dir string) ([]string, error) {
	version := npmVersion(o.Version)
	var license string
	top := map[string]file{}
	optional := map[string]string{}
	systems := map[string]string{}
	var oses []string
	var dirs []string
	for _, t := range o.Targets {
		name, sub := npmPackage(t)
		files, err := unpack(filepath.Join(o.Out, archiveName(o.Version, t)))
		if err != nil {
			return nil, err
		}
		if _, ok := files["LICENSE"]; ok {
			license = "SEE LICENSE IN LICENSE"
		}
		osName, cpu := npmSystem(t)
		manifest := packageJSON{Name: name, Version: version, License: license, Repository: repository,
			Description: fmt.Sprintf("The %s-%s binaries of git-checkpoint: install git-checkpoint, which depends on this", osName, cpu),
			OS:          []string{osName}, CPU: []string{cpu}, PreferUnplugged: true}
		if err := writePackage(filepath.Join(dir, sub), manifest, slices.Collect(maps.Values(files))); err != nil {
			return nil, err
		}
		dirs = append(dirs, filepath.Join(dir, sub))
		optional[name] = version
		systems[osName+"-"+cpu] = name
		if !slices.Contains(oses, osName) {
			oses = append(oses, osName)
		}
		// The pages and documents are the same in every archive; the
		// top package has them for npm to link and show.
		for n, f := range files {
			if strings.HasPrefix(n, "share/man/man1/") || !strings.Contains(n, "/") {
				f.name = strings.Replace(n, "share/man/man1/", "man/", 1)
				top[f.name] = f
			}
		}
	}
	programs := append(slices.Clone(binaries), helpers...)
	list, err := json.MarshalIndent(map[string]any{"programs": programs, "packages": systems}, "", "  ")
	if err != nil {
		return nil, err
	}
	top["lib/packages.json"] = file{"lib/packages.json", 0o644, append(list, '\n')}
	err = fs.WalkDir(npmFiles, "npm", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := npmFiles.ReadFile(p)
		name := strings.TrimPrefix(p, "npm/")
		top[name] = file{name, 0o644, data}
		return err
	})
	if err != nil {
		return nil, err
	}
	bin := map[string]string{}
	for _, p := range programs {
		launcher := fmt.Sprintf("#!/usr/bin/env node\n\"use strict\";\nrequire(\"../lib/launch.js\")(%q);\n", p)
		top["bin/"+p] = file{"bin/" + p, 0o755, []byte(launcher)}
		bin[p] = "bin/" + p
	}
	var man []string
	for _, b := range binaries {
		man = append(man, "man/"+b+".1")
	}
	slices.Sort(oses)
	manifest := packageJSON{Name: npmName, Version: version, License: license, Repository: repository,
		Description: "Checkpoints of the whole working tree for every coding agent, and an exact, undoable git rewind",
		OS:          oses, Bin: bin, Man: man, Scripts: map[string]string{"postinstall": "node install.js"},
		OptionalDependencies: optional}
	if err := writePackage(filepath.Join(dir, npmName), manifest, slices.Collect(maps.Values(top))); err != nil {
		return nil, err
	}
	return append(dirs, filepath.Join(dir, npmName)), nil
}

// repository is where the source is, for npm's page.
const repository = "github:git-checkpoint/git-checkpoint"

// writePackage writes a package's directory afresh: its files and
// package.json.
func writePackage(dir string, manifest packageJSON, files []file) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return err
	}
	files = append(files, file{"package.json", 0o644, append(data, '\n')})
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, os.FileMode(f.mode)); err != nil {
			return err
		}
	}
	return nil
}

// unpack reads the regular files of an archive pack wrote, by
// their names under its top directory.
func unpack(name string) (map[string]file, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	tr := tar.NewReader(zr)
	files := map[string]file{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, _ := strings.Cut(h.Name, "/")
		if !fs.ValidPath(rel) || rel == "." {
			return nil, fmt.Errorf("%s: unexpected entry %q", name, h.Name)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		files[rel] = file{rel, h.Mode, body}
	}
}
