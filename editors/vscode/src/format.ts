// How turns and checkpoints read in the view: the same words as
// `git checkpoint log` (its age, its `~2 +1 -0`, the prompt's first line).

import { Changes, CheckpointRecord, PlanDoc, Turn } from "./model";

/** `~2 +1 -0`, or `no end` for a turn that has not ended. */
export function changes(c: Changes | null | undefined): string {
  if (!c) {
    return "no end";
  }
  return `~${c.modified} +${c.added} -${c.deleted}`;
}

/** The first non-empty line of a prompt, or a word saying there is none. */
export function firstLine(prompt: string): string {
  const line = prompt.split("\n").find((l) => l.trim() !== "");
  return line ? line.trim() : "(no prompt recorded)";
}

/**
 * How long ago an RFC 3339 time was, in the words of `git checkpoint log`
 * (fault.Ago): `now` for a time ahead of the clock, `12s ago`, `5m ago`,
 * hours up to two days (`30h ago`), then `2d ago`.
 */
export function age(at: string, now: Date = new Date()): string {
  const secs = Math.floor((now.getTime() - Date.parse(at)) / 1000);
  if (secs < 0) {
    return "now";
  }
  if (secs < 60) {
    return `${secs}s ago`;
  }
  if (secs < 3600) {
    return `${Math.floor(secs / 60)}m ago`;
  }
  if (secs < 2 * 86400) {
    return `${Math.floor(secs / 3600)}h ago`;
  }
  return `${Math.floor(secs / 86400)}d ago`;
}

/** The description beside a turn's prompt: agent, age, changes. */
export function turnDescription(t: Turn, now?: Date): string {
  const state = t.running ? "running" : changes(t.changes);
  return `${t.id} · ${t.agent} · ${age(t.started_at, now)} · ${state}`;
}

/** A checkpoint between turns: `k4 manual · before the rename`. */
export function checkpointLabel(r: CheckpointRecord): string {
  return r.label ? `${r.id} ${r.reason} · ${r.label}` : `${r.id} ${r.reason}`;
}

/** The status bar's text for the newest checkpoint. */
export function statusText(r: CheckpointRecord | null, now?: Date): string {
  if (!r) {
    return "$(history) no checkpoint";
  }
  return `$(history) ${r.id} ${age(r.at, now)}`;
}

/**
 * The modal's detail: each path of the plan with its change and class,
 * what is left alone and why, what stops it, and the plan's id. The plan
 * is the CLI's; this only lays it out.
 */
export function planDetail(p: PlanDoc): string {
  const lines: string[] = [];
  if (p.files.length === 0) {
    lines.push("Nothing to change: the files are already as the plan wants them.");
  }
  for (const f of p.files) {
    lines.push(`${f.change} ${f.path} (${f.class})`);
  }
  if (p.left.length > 0) {
    lines.push("", "Left as they are:");
    for (const l of p.left) {
      lines.push(`  ${l.path} (${l.reason})`);
    }
  }
  if (p.head && p.head.moves) {
    lines.push("", `HEAD moves back ${p.head.commits} commit(s).`);
  }
  if (p.refused) {
    lines.push("", `Refused now: ${p.refused.message}`);
  }
  lines.push("", `Plan ${p.plan}. "Undo the last rewind" goes back.`);
  return lines.join("\n");
}
