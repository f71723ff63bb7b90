package fault

// Code is an error's stable name, "class.reason": programs match on it
// (the JSON error document carries it), and its class alone decides the
// exit status. Every code the tool reports is declared here, once, so that
// the list of codes is this page.
type Code string

// The failed class (exit 1): something broke that was not the user's
// doing.
const (
	FailedIO                   Code = "failed.io"                     // a file could not be read or written
	FailedGit                  Code = "failed.git"                    // a git command failed
	FailedInternal             Code = "failed.internal"               // a bug: an error without a code, or a panic
	FailedCommand              Code = "failed.command"                // git checkpoint run: the program did not run to its end
	FailedCommandNotExecutable Code = "failed.command_not_executable" // the program is there but cannot be run (exit 126)
	FailedCheckpointTooLarge   Code = "failed.checkpoint_too_large"   // new content over checkpoint.maxTotalBytes
	FailedNoSpace              Code = "failed.no_space"               // the filesystem is full (or the quota used up)
	FailedReadOnly             Code = "failed.read_only"              // the filesystem is mounted read-only
	FailedPermission           Code = "failed.permission"             // the user may not write where the command must
	FailedRewindPartial        Code = "failed.rewind_partial"         // a rewind failed and could not put every path back
	FailedRewindUndone         Code = "failed.rewind_undone"          // a rewind failed and put every path back
	FailedBisectGoodFails      Code = "failed.bisect_good_fails"      // bisect: CMD fails at the good end already
	FailedBisectBadPasses      Code = "failed.bisect_bad_passes"      // bisect: CMD passes at the bad end
	FailedBisectSetup          Code = "failed.bisect_setup"           // bisect: --setup failed in the temporary worktree
	FailedBisectInterrupted    Code = "failed.bisect_interrupted"     // bisect: stopped by a signal (exit 128+N)
)

// The invalid class (exit 2): the request itself is wrong.
const (
	InvalidUsage                Code = "invalid.usage"                 // flags that mean nothing together
	InvalidAborted              Code = "invalid.aborted"               // the person answered no
	InvalidAmbiguousID          Code = "invalid.ambiguous_id"          // a commit prefix that names several checkpoints
	InvalidAmbiguousSession     Code = "invalid.ambiguous_session"     // a session prefix that names several sessions
	InvalidCheckpointID         Code = "invalid.checkpoint_id"         // an argument without a checkpoint id's syntax
	InvalidConfig               Code = "invalid.config"                // a checkpoint.* setting that does not parse
	InvalidConfirmationRequired Code = "invalid.confirmation_required" // a rewind without a terminal, --yes or --plan
	InvalidEmpty                Code = "invalid.empty"                 // an option or argument given as an empty string
	InvalidInPrivateStore       Code = "invalid.in_private_store"      // git checkpoint init inside a private store
	InvalidInRepository         Code = "invalid.in_repository"         // git checkpoint init inside a git repository
	InvalidPath                 Code = "invalid.path"                  // a path outside the working tree
	InvalidPlan                 Code = "invalid.plan"                  // --plan without a plan id's syntax
	InvalidSettings             Code = "invalid.settings"              // an agent's settings file that is not what it should be
	InvalidTooBroad             Code = "invalid.too_broad"             // git checkpoint init where it would scan too much
)

// The not_found class (exit 3): what was named is not there.
const (
	NotFoundCheckpoint    Code = "not_found.checkpoint"      // no such checkpoint, or its ref is gone or moved
	NotFoundCommand       Code = "not_found.command"         // git checkpoint run: no such program; mcp: no server (exit 127)
	NotFoundCommit        Code = "not_found.commit"          // a commit a checkpoint names is gone
	NotFoundNothingToUndo Code = "not_found.nothing_to_undo" // --undo with no rewind
	NotFoundPath          Code = "not_found.path"            // a PATH in neither the checkpoint nor the tree
	NotFoundPlan          Code = "not_found.plan"            // MCP rewind_apply: a plan id this server did not make
)

// The conflict class (exit 5): doing it now would lose or mix someone's
// work; the hint says how to go on.
const (
	ConflictCommitsPushed     Code = "conflict.commits_pushed"      // --reset-head would drop pushed commits
	ConflictGitOperation      Code = "conflict.git_operation"       // a merge, rebase or other operation is in progress
	ConflictHeadMoved         Code = "conflict.head_moved"          // HEAD is not where the move needs it
	ConflictHookExists        Code = "conflict.hook_exists"         // the name a user's hook would be chained under is taken
	ConflictHookNotExecutable Code = "conflict.hook_not_executable" // the git hook is there but git would not run it
	ConflictPluginExists      Code = "conflict.plugin_exists"       // install: a plugin file of git-checkpoint's name is the user's
	ConflictInterruptedRewind Code = "conflict.interrupted_rewind"  // an earlier rewind never finished
	ConflictOutsideEdits      Code = "conflict.outside_edits"       // the plan would overwrite a person's edits
	ConflictRevertConflicts   Code = "conflict.revert_conflicts"    // --only or --session: a path does not reverse cleanly
	ConflictRewindStale       Code = "conflict.rewind_stale"        // the tree changed since the plan was shown
	ConflictSecrets           Code = "conflict.secrets"             // push: what it would publish holds secrets the person did not withhold or allow
	ConflictStoreShared       Code = "conflict.store_shared"        // push: the remote holds this store id's checkpoint at another commit
	ConflictTurnRunning       Code = "conflict.turn_running"        // --only or --session: a turn to reverse has no end yet
)

// The timeout class (exit 7).
const TimeoutLock Code = "timeout.lock" // the store lock was not acquired in time

// The unsupported class (exit 10): not a place the tool works in.
const (
	UnsupportedDubiousOwner Code = "unsupported.dubious_ownership" // a repository git refuses: another user owns it (safe.directory)
	UnsupportedGitDirectory Code = "unsupported.git_directory"     // inside .git or a bare repository
	UnsupportedNoRepository Code = "unsupported.no_repository"     // in no repository and no private store
	UnsupportedUnbornHead   Code = "unsupported.unborn_head"       // a fork of a checkpoint taken before the first commit
	UnsupportedMCPRewindOff Code = "unsupported.mcp_rewind_off"    // MCP rewind_apply while checkpoint.mcpRewind is not true
)
