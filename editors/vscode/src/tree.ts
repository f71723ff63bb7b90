// The Turns view: the turns newest first, each with its agent, age,
// prompt and changes, and the checkpoints taken between them, as
// `git checkpoint log --json` lists them; a turn opens to its changed
// files, each opening VS Code's diff editor on the turn's start and end.

import * as path from "path";
import * as vscode from "vscode";
import { checkpointUri } from "./content";
import * as format from "./format";
import { CheckpointRecord, LogDoc, Turn, TurnFile } from "./model";

export type Node =
  | { kind: "turn"; turn: Turn }
  | { kind: "checkpoint"; record: CheckpointRecord }
  | { kind: "file"; turn: Turn; file: TurnFile };

export class TurnsProvider implements vscode.TreeDataProvider<Node> {
  private log: LogDoc = { turns: [], checkpoints: [] };
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  /** Shows a new log. */
  set(log: LogDoc): void {
    this.log = log;
    this.changed.fire(undefined);
  }

  /** The turn with this id, as the last log listed it. */
  turn(id: string): Turn | undefined {
    return this.log.turns.find((t) => t.id === id);
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      return roots(this.log);
    }
    if (node.kind === "turn") {
      return node.turn.files.map((file) => ({ kind: "file", turn: node.turn, file }));
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case "turn":
        return turnItem(node.turn);
      case "checkpoint":
        return checkpointItem(node.record);
      case "file":
        return fileItem(node.turn, node.file);
    }
  }
}

// roots merges the turns and the checkpoints between them, newest first,
// as `git checkpoint log` prints them.
function roots(log: LogDoc): Node[] {
  const nodes: { at: number; node: Node }[] = [];
  for (const turn of log.turns) {
    nodes.push({ at: Date.parse(turn.started_at), node: { kind: "turn", turn } });
  }
  for (const record of log.checkpoints) {
    nodes.push({ at: Date.parse(record.at), node: { kind: "checkpoint", record } });
  }
  nodes.sort((a, b) => b.at - a.at);
  return nodes.map((n) => n.node);
}

function turnItem(t: Turn): vscode.TreeItem {
  const item = new vscode.TreeItem(format.firstLine(t.prompt), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `turn:${t.id}:${t.start ?? ""}`;
  item.description = format.turnDescription(t);
  item.contextValue = t.running || !t.end ? "turn-running" : "turn-ended";
  item.iconPath = new vscode.ThemeIcon(t.running ? "loading~spin" : "comment-discussion");
  const tip = new vscode.MarkdownString();
  tip.appendText(`${t.id} · ${t.agent} · ${t.session}\n`);
  tip.appendText(`${t.start ?? "?"}..${t.end ?? "(no end)"} · ${format.changes(t.changes)}\n\n`);
  tip.appendText(t.prompt || "(no prompt recorded)");
  item.tooltip = tip;
  return item;
}

function checkpointItem(r: CheckpointRecord): vscode.TreeItem {
  const item = new vscode.TreeItem(format.checkpointLabel(r), vscode.TreeItemCollapsibleState.None);
  item.id = `checkpoint:${r.id}`;
  item.description = `${format.age(r.at)}${r.changes ? " · " + format.changes(r.changes) : ""}`;
  item.contextValue = "checkpoint";
  item.iconPath = new vscode.ThemeIcon("git-commit");
  item.tooltip = `${r.id} (${r.reason}) ${r.at}\n${r.commit}`;
  return item;
}

const letters: Record<TurnFile["change"], string> = { added: "A", modified: "M", deleted: "D" };

function fileItem(t: Turn, f: TurnFile): vscode.TreeItem {
  const item = new vscode.TreeItem(path.posix.basename(f.path), vscode.TreeItemCollapsibleState.None);
  item.id = `file:${t.id}:${t.start ?? ""}:${f.path}`;
  // The file's address in the turn's end (its start for a deletion): its
  // icon follows its name, and no decoration of the working tree's state
  // (git's M, U) says something the turn did not do.
  item.resourceUri = checkpointUri((f.change === "deleted" ? t.start : t.end) ?? "", f.path);
  const dir = path.posix.dirname(f.path);
  item.description = `${letters[f.change]}${dir === "." ? "" : " · " + dir}`;
  item.contextValue = "file";
  item.tooltip = `${f.path} (${f.change} in ${t.id})`;
  item.command = { command: "gitCheckpoint.openFileDiff", title: "Open diff", arguments: [t.id, f.path] };
  return item;
}
