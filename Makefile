# git-checkpoint: build, test, install. Only Go and git are needed; the man
# pages are generated and committed, so installing needs no other tool.

PREFIX ?= /usr/local
BINDIR  = $(DESTDIR)$(PREFIX)/bin
MANDIR  = $(DESTDIR)$(PREFIX)/share/man/man1
GO     ?= go
BINS    = git-checkpoint git-rewind
# Programs the binaries run, installed beside them: no man page of their own.
HELPERS = git-checkpoint-mcp git-checkpoint-scan

.PHONY: all build test agents editors lint fuzz bench bench-500k bench-quick bench-session crash install uninstall clean man dist

all: build

# Built without cgo: nothing needs it, and a statically linked binary starts
# sooner, which every hook call pays (docs/speed.md, "Small trees").
build:
	@mkdir -p bin
	CGO_ENABLED=0 $(GO) build -o bin/ $(addprefix ./cmd/,$(BINS) $(HELPERS))

# The whole test suite: vet, formatting, unit tests and every transcript,
# then the race detector over the packages that run git from several
# goroutines at once (discovery beside configuration, the scan's halves).
test: lint agents editors
	$(GO) test ./...
	$(GO) test -race ./internal/capture ./internal/git ./internal/store

# The real agents the end-to-end tests drive, at their pinned versions: about
# 850 MB from npm the first time (install-agents says so), nothing after.
agents:
	@if command -v npm >/dev/null 2>&1; then bash .ci/install-agents; \
	else echo "make test: npm is not installed, so the tests with the real agents will skip"; fi

# What the VS Code extension's test builds and runs it with (TypeScript,
# vsce, code-server, playwright-core), at their pinned versions: about
# 800 MB from npm the first time. code-server builds native modules, which
# need a C++ compiler and a few -dev libraries (.ci/run installs them);
# without them the test skips, saying so.
editors: agents
	@if command -v npm >/dev/null 2>&1; then bash .ci/install-editors || \
		{ test -z "$$CI" && echo "make test: .ci/install-editors failed, so the VS Code extension's test will skip"; }; \
	else echo "make test: npm is not installed, so the VS Code extension's test will skip"; fi

# Every fuzz target of every package, FUZZTIME each (go test alone runs
# only their seed corpora, in testdata/fuzz). The targets in FUZZ_ON_DISK
# write a real journal, a synced line at a time, or a repository and its
# checkpoints with git, a few inputs a second: they get FUZZTIME_ON_DISK
# instead, so that a count of inputs that takes the others a minute does
# not take them hours.
FUZZTIME ?= 10s
FUZZTIME_ON_DISK ?= 100x
FUZZ_ON_DISK = FuzzSummary FuzzStatCheck FuzzDiffer
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			t=$(FUZZTIME); \
			case " $(FUZZ_ON_DISK) " in *" $$f "*) t=$(FUZZTIME_ON_DISK);; esac; \
			echo "fuzz $$f ($$pkg, $$t)"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $$t $$pkg || exit 1; \
		done; \
	done

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l cmd internal *.go); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The side-by-side benchmark of DESIGN section 10 (see docs/speed.md): builds
# 1k, 10k and 100k-file repositories once under the user cache directory,
# then measures git status, the rivals' methods and git-checkpoint, and
# checks the design's ratios. BENCHFLAGS passes options (-rounds, -sizes,
# -shapes goroot,node_modules,kubernetes for the real trees).
bench: build
	$(GO) run ./internal/bench/cmd -bin bin $(BENCHFLAGS)

# Chromium scale: a 500,000-file tree of each shape (5 to 6 GB of disk
# each, built once and cached) and its targets; 5 rounds.
bench-500k: build
	$(GO) run ./internal/bench/cmd -bin bin -sizes 500000 -rounds 5 $(BENCHFLAGS)

# What the hooks add to a real agent's session (docs/speed.md, A real
# agent's session): Claude Code driven by a fake model through 30 turns and
# 200 tool calls on the 10k and 100k-file trees, with the hooks and
# without, interleaved, then one traced session. SESSIONFLAGS passes
# options (-session.rounds, -session.sizes, ...). go test runs its quick
# mode; this is the measurement, and it takes a while.
SESSIONFLAGS ?=
bench-session: build agents
	$(GO) test -count=1 -timeout 0 -v -run '^TestSession$$' ./internal/bench/session \
		-args -session.full -session.bin $(CURDIR)/bin $(SESSIONFLAGS)

# The power-loss test (docs/fault-safety.md): each operation crashed on a
# filesystem that forgets what was not synced, CRASH_POINTS crash points
# each ("all" for every one; go test alone tries 4), picked by CRASH_SEED;
# CRASH_OPS, a regular expression, chooses the operations. Ends with
# "N crash points, M lost". Needs /dev/fuse and fusermount3 (root).
CRASH_POINTS ?= all
CRASH_SEED ?= 1
CRASH_OPS ?=
crash:
	CRASH_POINTS=$(CRASH_POINTS) CRASH_SEED=$(CRASH_SEED) CRASH_OPS='$(CRASH_OPS)' \
		$(GO) test -count=1 -timeout 0 -run '^TestPowerLoss$$' -v .

# A 1k-file tree of each synthetic shape and the real trees (built once;
# node_modules needs npm's registry, kubernetes the Go module proxy), two
# rounds: proves every case runs; judges nothing.
bench-quick: build
	$(GO) run ./internal/bench/cmd -bin bin -quick -shapes default,wide,goroot,node_modules,kubernetes $(BENCHFLAGS)

# The completion scripts go where the release archives have them (bash-
# completion, zsh and fish find them under the prefix); internal/dist
# holds that layout.
install: build
	install -d $(BINDIR) $(MANDIR)
	install -m 755 $(addprefix bin/,$(BINS) $(HELPERS)) $(BINDIR)/
	install -m 644 $(addprefix man/,$(addsuffix .1,$(BINS))) $(MANDIR)/
	$(GO) run ./internal/dist/cmd -completions $(DESTDIR)$(PREFIX)

uninstall:
	rm -f $(addprefix $(BINDIR)/,$(BINS) $(HELPERS)) $(addprefix $(MANDIR)/,$(addsuffix .1,$(BINS)))
	$(GO) run ./internal/dist/cmd -completions $(DESTDIR)$(PREFIX) -remove

clean:
	rm -rf bin dist

# Release archives in dist/, one per GOOS-GOARCH (TARGETS=linux/amd64,...
# builds only those), with SHA256SUMS: reproducible, so their time is the
# last commit's; and the npm packages made from them in dist/npm (one per
# target and git-checkpoint, docs/npm.md). See internal/dist.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
dist:
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(GO) run ./internal/dist/cmd -out dist -npm dist/npm -version $(VERSION) $(if $(TARGETS),-targets $(TARGETS))

# Regenerate man/*.1 from man/*.md (the test fails when they differ).
man:
	$(GO) test ./internal/manpage -update
