# git-checkpoint: build, test, install. Only Go and git are needed; the man
# pages are generated and committed, so installing needs no other tool.

PREFIX ?= /usr/local
BINDIR  = $(DESTDIR)$(PREFIX)/bin
MANDIR  = $(DESTDIR)$(PREFIX)/share/man/man1
GO     ?= go
BINS    = git-checkpoint git-rewind

.PHONY: all build test lint install uninstall clean man

all: build

build:
	@mkdir -p bin
	$(GO) build -o bin/ ./cmd/git-checkpoint ./cmd/git-rewind

# The whole test suite: vet, formatting, unit tests and every transcript.
test: lint
	$(GO) test ./...

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l cmd internal *.go); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

install: build
	install -d $(BINDIR) $(MANDIR)
	install -m 755 $(addprefix bin/,$(BINS)) $(BINDIR)/
	install -m 644 $(addprefix man/,$(addsuffix .1,$(BINS))) $(MANDIR)/

uninstall:
	rm -f $(addprefix $(BINDIR)/,$(BINS)) $(addprefix $(MANDIR)/,$(addsuffix .1,$(BINS)))

clean:
	rm -rf bin

# Regenerate man/*.1 from man/*.md (the test fails when they differ).
man:
	$(GO) test ./internal/manpage -update
