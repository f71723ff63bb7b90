#!/usr/bin/env bash
# Build the extension's .vsix: compile the TypeScript and package it with
# vsce, in a staging directory, so that the source tree gets no out/ or
# node_modules/.
#
# Usage: editors/vscode/build.sh OUT.vsix
#
# The tools, at the versions package.json pins, come from TOOLS (a
# node_modules directory): $GIT_CHECKPOINT_EDITORS_DIR/node_modules, where
# .ci/install-editors puts them, or else ./node_modules after `npm ci`
# here. vsce needs Node 20 or later on PATH.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ]; then
	echo "usage: $0 OUT.vsix" >&2
	exit 2
fi
mkdir -p "$(dirname "$1")"
out=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

if [ -n "${TOOLS:-}" ]; then
	tools=$TOOLS
elif [ -n "${GIT_CHECKPOINT_EDITORS_DIR:-}" ]; then
	tools=$GIT_CHECKPOINT_EDITORS_DIR/node_modules
elif [ -x "$here/node_modules/.bin/vsce" ]; then
	tools=$here/node_modules
else
	tools=${XDG_CACHE_HOME:-$HOME/.cache}/git-checkpoint/editors/node_modules
fi
if [ ! -x "$tools/.bin/tsc" ] || [ ! -x "$tools/.bin/vsce" ]; then
	echo "build: no tsc and vsce in $tools" >&2
	echo "hint: run 'npm ci' in $here, or .ci/install-editors" >&2
	exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -R "$here/package.json" "$here/tsconfig.json" "$here/.vscodeignore" "$here/README.md" "$here/media" "$here/src" "$stage/"
"$tools/.bin/tsc" -p "$stage" --typeRoots "$tools/@types"
# --no-dependencies: the extension has none at run time (it runs the CLI);
# --skip-license: the project's license is the repository's.
(cd "$stage" && "$tools/.bin/vsce" package --no-dependencies --skip-license --out "$out")
