// The extension's entry: one repository (the first folder of the
// workspace), its Turns view, the status bar item with the newest
// checkpoint, the commands, and the watch on the journal that refreshes
// them. Everything it knows it asks the CLI (`--json`).

import * as path from "path";
import * as vscode from "vscode";
import { Cli, CliError } from "./cli";
import { CheckpointContent, checkpointUri, scheme } from "./content";
import * as format from "./format";
import { LogDoc, StatusDoc, Turn } from "./model";
import * as rewind from "./rewind";
import { Node, TurnsProvider } from "./tree";

export function activate(context: vscode.ExtensionContext): void {
  const app = new App();
  context.subscriptions.push(app);
  void app.refresh();
}

export function deactivate(): void {}

class App implements vscode.Disposable {
  private cli: Cli | undefined;
  private readonly turns = new TurnsProvider();
  private readonly view: vscode.TreeView<Node>;
  private readonly status: vscode.StatusBarItem;
  private watcher: vscode.FileSystemWatcher | undefined;
  private watched = "";
  private top = "";
  private latest: StatusDoc["latest"] = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder && folder.uri.scheme === "file") {
      this.cli = new Cli(folder.uri.fsPath, () => vscode.workspace.getConfiguration("gitCheckpoint").get<string>("git") || "git");
    }
    this.view = vscode.window.createTreeView("gitCheckpoint.turns", { treeDataProvider: this.turns, showCollapseAll: true });
    this.status = vscode.window.createStatusBarItem("gitCheckpoint.latest", vscode.StatusBarAlignment.Left, 0);
    this.status.name = "git-checkpoint";
    this.status.command = "gitCheckpoint.turns.focus";
    const content = new CheckpointContent(() => this.cli);
    const cmd = (id: string, f: (...args: any[]) => unknown) =>
      vscode.commands.registerCommand(id, async (...args: any[]) => {
        try {
          await f(...args);
        } catch (e) {
          showError(e);
        }
      });
    this.disposables.push(
      this.view,
      this.status,
      vscode.workspace.registerTextDocumentContentProvider(scheme, content),
      cmd("gitCheckpoint.refresh", () => this.refresh()),
      cmd("gitCheckpoint.undoTurn", (n?: Node) => this.withTurn(n, (cli, t) => rewind.undoTurn(cli, t))),
      cmd("gitCheckpoint.rewindBeforeTurn", (n?: Node) => this.withTurn(n, (cli, t) => rewind.rewindBeforeTurn(cli, t))),
      cmd("gitCheckpoint.undoRewind", () => this.withCli((cli) => rewind.undoRewind(cli))),
      cmd("gitCheckpoint.openTurnChanges", (n?: Node) => this.openTurnChanges(n)),
      cmd("gitCheckpoint.openFileDiff", (turn: string, file: string) => this.openFileDiff(turn, file, true)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("gitCheckpoint")) {
          void this.refresh();
        }
      }),
    );
    // Ages are words like "5m ago": redraw them each minute. This runs no
    // git; the data changes only when the journal does.
    this.timer = setInterval(() => {
      this.status.text = format.statusText(this.latest);
      this.turns.set(this.lastLog);
    }, 60_000);
  }

  private lastLog: LogDoc = { turns: [], checkpoints: [] };

  /** Reads the log and the status again and redraws the view and the status bar. */
  async refresh(): Promise<void> {
    const cli = this.cli;
    if (!cli) {
      this.view.message = "Open a folder in a git repository to see its agents' turns.";
      this.status.hide();
      return;
    }
    try {
      const [status, log] = await Promise.all([cli.checkpoint<StatusDoc>("status"), cli.checkpoint<LogDoc>("log")]);
      this.top = status.top;
      this.latest = status.latest;
      this.lastLog = log;
      this.turns.set(log);
      this.view.message = undefined;
      this.status.text = format.statusText(status.latest);
      this.status.tooltip = status.latest
        ? `Newest checkpoint: ${status.latest.id} (${status.latest.reason}) at ${status.latest.at}`
        : "No checkpoint yet";
      this.status.show();
      this.watch(status.state_dir);
    } catch (e) {
      const err = e instanceof CliError ? e : new CliError(String(e), "failed", [], undefined);
      this.view.message = [err.message, ...err.hints].join(" · ");
      this.status.hide();
    }
  }

  // watch refreshes when the journal changes: every checkpoint, turn and
  // rewind appends to it (it is in the store's state directory, which
  // `status --json` names), so the view follows them without asking git.
  private watch(stateDir: string): void {
    if (stateDir === this.watched) {
      return;
    }
    this.watcher?.dispose();
    this.watched = stateDir;
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(stateDir), "journal.jsonl"));
    let pending: NodeJS.Timeout | undefined;
    const soon = () => {
      // A turn appends several lines at once; one refresh for them all.
      if (pending) {
        clearTimeout(pending);
      }
      pending = setTimeout(() => void this.refresh(), 200);
    };
    w.onDidChange(soon);
    w.onDidCreate(soon);
    w.onDidDelete(soon);
    this.watcher = w;
  }

  private async withCli(f: (cli: Cli) => Promise<boolean>): Promise<void> {
    if (!this.cli) {
      throw new CliError("no folder is open", "unsupported.no_folder", ["open a folder in a git repository"], undefined);
    }
    if (await f(this.cli)) {
      await this.refresh();
    }
  }

  private withTurn(n: Node | undefined, f: (cli: Cli, t: Turn) => Promise<boolean>): Promise<void> {
    const t = this.turnOf(n);
    return this.withCli((cli) => f(cli, t));
  }

  // turnOf is the turn a command was given (from the view), or else the
  // one selected in the view.
  private turnOf(n: Node | undefined): Turn {
    const node = n ?? this.view.selection[0];
    if (node && (node.kind === "turn" || node.kind === "file")) {
      return node.turn;
    }
    throw new CliError("no turn is selected", "invalid.no_turn", ["select a turn in the Turns view first"], undefined);
  }

  private async openTurnChanges(n: Node | undefined): Promise<void> {
    const t = this.turnOf(n);
    for (const f of t.files) {
      await this.openFileDiff(t.id, f.path, false);
    }
  }

  // openFileDiff shows one file of a turn in VS Code's diff editor: the
  // turn's start on the left, its end on the right (the working tree's
  // file while the turn runs).
  private async openFileDiff(turnId: string, file: string, preview: boolean): Promise<void> {
    const t = this.turns.turn(turnId);
    if (!t) {
      throw new CliError(`turn ${turnId} is no longer in the log`, "not_found.checkpoint", ["refresh the Turns view"], undefined);
    }
    // No start checkpoint (pruned): an empty left side (ref "").
    const left = checkpointUri(t.start ?? "", file);
    const right = t.end ? checkpointUri(t.end, file) : vscode.Uri.file(path.join(this.top, file));
    const title = `${path.posix.basename(file)} (${t.id}: ${t.start ?? "?"} ↔ ${t.end ?? "now"})`;
    await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview });
  }

  dispose(): void {
    if (this.timer) {
      clearInterval(this.timer);
    }
    this.watcher?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

// showError shows the CLI's message and its hints: what happened and what
// to do, as the command line would print them.
function showError(e: unknown): void {
  if (e instanceof CliError) {
    const hints = e.hints.length > 0 ? " Hint: " + e.hints.join(" ") : "";
    void vscode.window.showErrorMessage(`git-checkpoint: ${e.message}.${hints}`);
    return;
  }
  void vscode.window.showErrorMessage(`git-checkpoint: ${e instanceof Error ? e.message : String(e)}`);
}
