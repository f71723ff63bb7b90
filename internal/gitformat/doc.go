// Package gitformat holds the parts of git this program writes and reads
// itself instead of asking git: object ids, tree bodies, commit bodies,
// packs and their index, the index file (read only), and two trees
// compared in memory. Each earns its place by a measurement in
// docs/speed.md: a git process spared on a path a hook or a rewind takes
// every time.
//
// It is fenced: nothing here starts git or knows what a checkpoint is,
// and nothing else in the program encodes or parses git's formats (git
// is asked through internal/git, the one door). Each file has its
// differential test beside it, which compares what it makes or reads
// with what the real git makes or reads of the same input; a file here
// without one is a defect.
package gitformat
