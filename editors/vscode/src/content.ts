// A read-only document for a file as a checkpoint holds it, so that VS
// Code's own diff editor can show what a turn changed. A checkpoint is a
// commit (`git checkpoint show ID --json` names it), and it holds untracked
// files too; a path the checkpoint lacks (a file the turn created, or one
// it deleted) reads as empty, so additions and deletions diff like any
// other change.

import * as vscode from "vscode";
import { Cli } from "./cli";
import { CheckpointRecord } from "./model";

export const scheme = "git-checkpoint";

/** The address of PATH (relative to the top of the tree) in checkpoint REF. */
export function checkpointUri(ref: string, path: string): vscode.Uri {
  // The path part carries the file's name, so the editor picks its
  // language and shows its name in the tab; the query says where from.
  return vscode.Uri.from({
    scheme,
    path: "/" + path,
    query: JSON.stringify({ ref, path }),
  });
}

export class CheckpointContent implements vscode.TextDocumentContentProvider {
  // Checkpoint ids are never reused in a working tree, so the commit an
  // id names stays the same as long as it exists.
  private commits = new Map<string, Promise<string>>();

  constructor(private readonly cli: () => Cli | undefined) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const { ref, path } = JSON.parse(uri.query) as { ref: string; path: string };
    if (!ref) {
      return "";
    }
    const cli = this.cli();
    if (!cli) {
      throw new Error("no repository with checkpoints is open");
    }
    const commit = await this.commit(cli, ref);
    const bytes = await cli.raw(["cat-file", "blob", `${commit}:${path}`]);
    return bytes ? new TextDecoder("utf-8").decode(bytes) : "";
  }

  private commit(cli: Cli, ref: string): Promise<string> {
    let c = this.commits.get(ref);
    if (!c) {
      c = cli.checkpoint<CheckpointRecord>("show", ref).then((r) => r.commit);
      c.catch(() => this.commits.delete(ref));
      this.commits.set(ref, c);
    }
    return c;
  }
}
