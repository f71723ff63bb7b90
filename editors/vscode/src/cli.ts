// The one door to git-checkpoint: every call runs `git checkpoint ...` or
// `git rewind ...` with --json and parses the one JSON document it prints.
// The extension reads nothing else of the product (no journal format, no
// refs), so it keeps working when those change; the JSON shapes are the
// stable contract (man git-checkpoint, JSON; man git-rewind, JSON).

import { execFile } from "child_process";

/** An error the CLI reported as its JSON error document, or a failure to run it. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly hints: string[],
    readonly data: unknown,
  ) {
    super(message);
  }
}

/** Runs git programs in one working tree. */
export class Cli {
  constructor(
    readonly cwd: string,
    private readonly git: () => string,
  ) {}

  /** `git checkpoint ARGS... --json`, parsed. */
  checkpoint<T>(...args: string[]): Promise<T> {
    return this.json<T>(["checkpoint", ...args, "--json"]);
  }

  /** `git rewind ARGS... --json`, parsed. */
  rewind<T>(...args: string[]): Promise<T> {
    return this.json<T>(["rewind", ...args, "--json"]);
  }

  /**
   * Plain git, for the bytes of a file in a checkpoint's commit (`git
   * cat-file`): git-checkpoint prints records, not file contents. Resolves
   * to undefined when git exits non-zero (the path is not in that commit).
   */
  raw(args: string[]): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) => {
      execFile(
        this.git(),
        ["-C", this.cwd, ...args],
        { encoding: "buffer", maxBuffer: 256 << 20, env: env() },
        (err, stdout) => {
          if (err && typeof (err as NodeJS.ErrnoException).code === "string") {
            reject(notRunnable(this.git(), err));
            return;
          }
          resolve(err ? undefined : stdout);
        },
      );
    });
  }

  private json<T>(args: string[]): Promise<T> {
    return new Promise((resolve, reject) => {
      execFile(
        this.git(),
        ["-C", this.cwd, ...args],
        { encoding: "utf8", maxBuffer: 64 << 20, env: env() },
        (err, stdout, stderr) => {
          // A spawn failure (git not found) has a string code; an exit
          // status a number.
          if (err && typeof (err as NodeJS.ErrnoException).code === "string") {
            reject(notRunnable(this.git(), err));
            return;
          }
          let doc: any;
          try {
            doc = JSON.parse(stdout);
          } catch {
            reject(noJSON(args, stderr));
            return;
          }
          if (doc && typeof doc === "object" && doc.error) {
            const e = doc.error;
            reject(new CliError(String(e.message ?? e.code), String(e.code ?? "failed"), Array.isArray(e.hints) ? e.hints.map(String) : [], e.data));
            return;
          }
          if (err) {
            reject(noJSON(args, stderr));
            return;
          }
          resolve(doc as T);
        },
      );
    });
  }
}

// env keeps the editor's environment but makes sure git never waits for
// a person: no pager, no terminal prompt.
function env(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", PAGER: "cat" };
}

function notRunnable(git: string, err: Error): CliError {
  return new CliError(`cannot run ${git}: ${err.message}`, "unsupported.no_git", [
    "install git, and git-checkpoint on the PATH the editor was started with, or set gitCheckpoint.git to git's full path",
  ], undefined);
}

// noJSON is what a git that does not know the command prints: git's own
// "'checkpoint' is not a git command" on stderr, and nothing on stdout.
function noJSON(args: string[], stderr: string): CliError {
  const first = stderr.trim().split("\n")[0] ?? "";
  if (/is not a git command/.test(stderr)) {
    return new CliError(first, "unsupported.not_installed", [
      "install git-checkpoint (git-checkpoint and git-rewind on PATH), then reload the window",
    ], undefined);
  }
  return new CliError(first || `git ${args[0]} printed no JSON`, "failed", [], undefined);
}
