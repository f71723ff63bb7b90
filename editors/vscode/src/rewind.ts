// The three rewinds the view offers. Each asks the CLI for its plan first
// (`git rewind ... --dry-run --json`), shows it in a modal dialog, and
// applies exactly that plan (`--plan ID`): if the tree changed in
// between, the CLI refuses with conflict.rewind_stale and nothing
// happens, so what the person read is what is done.

import * as vscode from "vscode";
import { Cli, CliError } from "./cli";
import * as format from "./format";
import { PlanDoc, Turn } from "./model";

/** The label of the modal's button that applies the plan shown. */
export const applyLabel = "Apply this plan";

export function undoTurn(cli: Cli, t: Turn): Promise<boolean> {
  return planAndApply(cli, `Undo turn ${t.id} "${format.firstLine(t.prompt)}" and keep everything after it?`, ["--only", t.id]);
}

export function rewindBeforeTurn(cli: Cli, t: Turn): Promise<boolean> {
  return planAndApply(cli, `Rewind the files to before turn ${t.id} "${format.firstLine(t.prompt)}"?`, [t.id]);
}

export function undoRewind(cli: Cli): Promise<boolean> {
  return planAndApply(cli, "Undo the last rewind?", ["--undo"]);
}

async function planAndApply(cli: Cli, question: string, args: string[]): Promise<boolean> {
  let outside: string[] = [];
  for (;;) {
    const plan = await cli.rewind<PlanDoc>(...args, ...outside, "--dry-run");
    if (plan.files.length === 0 && !plan.refused) {
      void vscode.window.showInformationMessage(`Nothing to do: the files are already as plan ${plan.plan} wants them.`);
      return false;
    }
    const detail = format.planDetail(plan);
    if (plan.refused && plan.refused.code === "conflict.outside_edits" && outside.length === 0) {
      // The CLI refuses to overwrite a person's edits unless told what to
      // do with them: ask, then show the plan of that choice.
      const keep = "Keep those edits";
      const overwrite = "Overwrite them too";
      const choice = await vscode.window.showWarningMessage(question, { modal: true, detail }, keep, overwrite);
      if (!choice) {
        return false;
      }
      outside = [choice === keep ? "--outside=keep" : "--outside=overwrite"];
      continue;
    }
    if (plan.refused) {
      throw new CliError(plan.refused.message, plan.refused.code, [], plan.refused.data);
    }
    const choice = await vscode.window.showWarningMessage(question, { modal: true, detail }, applyLabel);
    if (choice !== applyLabel) {
      return false;
    }
    const done = await cli.rewind<PlanDoc>(...args, ...outside, "--plan", plan.plan);
    report(done);
    return true;
  }
}

function report(done: PlanDoc): void {
  const n = done.files.length;
  const undo = done.safety ? ` The tree before is checkpoint ${done.safety}: "Undo the last rewind" goes back.` : "";
  if (done.exact === false) {
    const paths = (done.unexpected ?? []).join(", ");
    void vscode.window.showWarningMessage(`Rewound ${n} file(s), but these are not as planned: ${paths}.${undo}`);
    return;
  }
  const resume = done.resume ? ` To continue the conversation from there: ${done.resume.command}` : "";
  void vscode.window.showInformationMessage(`Rewound ${n} file(s) (plan ${done.plan}).${undo}${resume}`);
}
