// The JSON documents of the CLI this extension reads, as the man pages
// describe them (git-checkpoint(1) JSON, git-rewind(1) JSON). Fields the
// extension does not use are left out; more may come, none will go.

export interface Changes {
  modified: number;
  added: number;
  deleted: number;
}

export interface TurnFile {
  path: string;
  change: "added" | "modified" | "deleted";
}

export interface Turn {
  id: string; // t3
  session: string;
  agent: string;
  prompt: string;
  started_at: string;
  ended_at: string | null;
  start: string | null; // k7
  end: string | null;
  running: boolean;
  changes: Changes | null;
  files: TurnFile[];
}

export interface CheckpointRecord {
  id: string; // k7
  commit: string;
  reason: string;
  turn?: string;
  agent?: string;
  at: string;
  label?: string;
  changes?: Changes;
}

export interface LogDoc {
  turns: Turn[];
  checkpoints: CheckpointRecord[];
}

export interface StatusDoc {
  top: string;
  state_dir: string;
  latest: CheckpointRecord | null;
}

export interface PlanFile {
  path: string;
  change: "create" | "modify" | "delete" | "type";
  class: string;
}

export interface PlanDoc {
  checkpoint: string;
  dry_run: boolean;
  plan: string;
  files: PlanFile[];
  left: { path: string; reason: string }[];
  head?: { moves: boolean; from: string; to: string; commits: number };
  refused?: { code: string; message: string; data?: unknown };
  safety?: string;
  exact?: boolean;
  unexpected?: string[];
  resume?: { agent: string; command: string } | null;
}
