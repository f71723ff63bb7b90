// Package editortest holds the tests of the editor integrations in real
// editors: TestEditorVSCode builds the VS Code extension (editors/vscode)
// into a .vsix, installs it into code-server (VS Code served to a browser)
// with a fresh user-data and extensions directory, and drives it through
// Debian's Chromium with Playwright's library, as a person would: the
// turns of a real repository in the view, a turn's diff, "Undo this turn"
// and "Undo the last rewind" answered in their modal dialogs. The test
// then checks the files on disk and what the CLI recorded. Screenshots of
// each step are kept (see TestEditorVSCode).
//
// What it runs is installed by .ci/install-editors (the pinned npm
// packages) and .ci/run (Chromium). Without them the test skips, saying
// what is missing; with CI=true it fails instead. The package has tests
// only.
package editortest
