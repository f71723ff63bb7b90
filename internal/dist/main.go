package dist

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Main is `make dist`: dist [-out DIR] [-version V] [-targets os/arch,...]
// [-npm DIR] run from the module's top directory (-npm: the npm packages
// too, made from the archives); `dist -completions PREFIX
// [-remove]` is the completion scripts' part of `make install` (and of
// `make uninstall`). The archives' time is
// SOURCE_DATE_EPOCH (seconds), which the Makefile sets to the last
// commit's time; without it, 0.
func Main(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "dist", "the directory the archives go to")
	version := fs.String("version", "devel", "the version in the archives' names")
	targets := fs.String("targets", "", "os/arch,... (default: every release target)")
	completionsTo := fs.String("completions", "", "install the completion scripts under this prefix, as the archives lay them out, and build nothing (make install)")
	npmDir := fs.String("npm", "", "also write the npm packages, made from the archives, under this directory")
	remove := fs.Bool("remove", false, "with -completions: remove them instead (make uninstall)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *completionsTo != "" {
		if err := installCompletions(*completionsTo, *remove); err != nil {
			fmt.Fprintf(stderr, "dist: %v\n", err)
			return 1
		}
		return 0
	}
	o := Options{Src: ".", Out: *out, Version: *version, Targets: Targets, Go: "go", Env: env, Log: stderr,
		Time: time.Unix(0, 0)}
	if *targets != "" {
		o.Targets = nil
		for _, t := range strings.Split(*targets, ",") {
			osName, arch, ok := strings.Cut(t, "/")
			if !ok {
				fmt.Fprintf(stderr, "dist: %q is not os/arch\n", t)
				return 2
			}
			o.Targets = append(o.Targets, Target{osName, arch})
		}
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "SOURCE_DATE_EPOCH="); ok && v != "" {
			sec, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				fmt.Fprintf(stderr, "dist: SOURCE_DATE_EPOCH=%s is not a number of seconds\n", v)
				return 2
			}
			o.Time = time.Unix(sec, 0)
		}
	}
	names, err := Build(context.Background(), o)
	if err != nil {
		fmt.Fprintf(stderr, "dist: %v\n", err)
		return 1
	}
	for _, n := range names {
		fmt.Fprintf(stdout, "%s/%s\n", *out, n)
	}
	fmt.Fprintf(stdout, "%s/SHA256SUMS\n", *out)
	if *npmDir != "" {
		dirs, err := NPM(o, *npmDir)
		if err != nil {
			fmt.Fprintf(stderr, "dist: npm: %v\n", err)
			return 1
		}
		for _, d := range dirs {
			fmt.Fprintf(stdout, "%s/\n", d)
		}
	}
	return 0
}

// installCompletions writes the completion scripts under prefix where
// the archives have them (completions, the one list), so that `make
// install` gives what a release gives; with remove, it deletes them.
func installCompletions(prefix string, remove bool) error {
	for _, f := range completions() {
		p := filepath.Join(prefix, filepath.FromSlash(f.name))
		if remove {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, os.FileMode(f.mode)); err != nil {
			return err
		}
	}
	return nil
}
