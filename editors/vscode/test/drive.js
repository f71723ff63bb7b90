// Drives the extension in code-server through a real Chromium, as a person
// would: open the repository, see the turns in the Checkpoints view, open
// a turn's diff, undo a turn through the modal that shows its plan, and
// see the view follow a checkpoint taken outside the editor. It changes
// nothing itself but through the editor; the Go test that runs it
// (TestEditorVSCode) checks the files on disk afterwards.
//
// Usage: node drive.js CONFIG.json, where the JSON holds
//   phase        "undo-turn" (every step below) or "undo-rewind" (open
//                the view and undo the last rewind from its title bar)
//   url          code-server's address with ?folder=REPO
//   chromium     the browser's executable
//   shots        the directory the screenshots go to
//   prompts      the prompts' first lines the view must show, newest first
//   undo         the prompt of the turn to undo
//   file         a file of that turn whose diff to open, and a line of its
//                new side ("text")
//   checkpoint   a command line that takes a checkpoint outside the editor,
//                and the label it gives ("label")
// It prints one line per step and exits non-zero, with a screenshot of
// the page, at the first step that fails.

"use strict";

const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { chromium } = require("playwright-core");

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const timeout = 60_000;
let shot = 0;

function step(msg) {
  console.log(`drive: ${msg}`);
}

async function screenshot(page, name) {
  shot++;
  const file = path.join(cfg.shots, `${cfg.phase}-${String(shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  console.log(`drive: screenshot ${file}`);
}

// row is the Checkpoints view's row holding text.
function row(page, text) {
  return page.locator('.pane-body [role="treeitem"]', { hasText: text }).first();
}

async function main() {
  const browser = await chromium.launch({
    executablePath: cfg.chromium,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(timeout);
  try {
    await run(page);
  } catch (e) {
    console.log(`drive: FAILED: ${e && e.message ? e.message.split("\n")[0] : e}`);
    await screenshot(page, "failure").catch(() => {});
    await browser.close();
    process.exit(1);
  }
  await browser.close();
}

async function run(page) {
  step(`open ${cfg.url}`);
  await page.goto(cfg.url);
  await page.locator(".monaco-workbench").waitFor();

  step("open the Checkpoints view");
  await page.locator('.activitybar [aria-label^="Checkpoints"]').first().click();
  if (cfg.phase === "undo-rewind") {
    await undoRewind(page);
    return;
  }
  for (const p of cfg.prompts) {
    await row(page, p).waitFor();
    step(`the view shows the turn "${p}"`);
  }
  await screenshot(page, "turns");

  step(`open the turn "${cfg.undo}" and the diff of ${cfg.file}`);
  await row(page, cfg.undo).click();
  await row(page, cfg.file).click();
  const diff = page.locator(".monaco-diff-editor").first();
  await diff.waitFor();
  await page.locator(".tab", { hasText: `${cfg.file} (` }).first().waitFor();
  await diff.locator(".modified .view-lines", { hasText: cfg.text }).waitFor();
  step(`the diff editor shows "${cfg.text}" on the new side`);
  await screenshot(page, "diff");

  step(`undo the turn "${cfg.undo}"`);
  const turn = row(page, cfg.undo);
  await turn.hover();
  await turn.locator('.action-label[aria-label="Undo this turn"]').click();
  const dialog = page.locator(".monaco-dialog-box");
  await dialog.waitFor();
  await dialog.getByText("p1-", { exact: false }).first().waitFor();
  step("the modal shows the plan");
  await screenshot(page, "plan");
  await apply(page, dialog, "undone");

  step(`take a checkpoint outside the editor: ${cfg.checkpoint.join(" ")}`);
  execFileSync(cfg.checkpoint[0], cfg.checkpoint.slice(1), { stdio: "inherit" });
  await row(page, cfg.label).waitFor();
  step(`the view shows "${cfg.label}" without a refresh`);
  await screenshot(page, "refreshed");
}

// undoRewind runs "Undo the last rewind" from the view's title bar.
async function undoRewind(page) {
  for (const p of cfg.prompts) {
    await row(page, p).waitFor();
  }
  step("undo the last rewind");
  await page.locator('.part.sidebar .action-label[aria-label="Undo the last rewind"]').first().click();
  const dialog = page.locator(".monaco-dialog-box");
  await dialog.getByText("Undo the last rewind?").waitFor();
  step("the modal shows the plan");
  await screenshot(page, "undo-plan");
  await apply(page, dialog, "redone");
}

// apply answers the modal with the button that applies the plan shown,
// and waits for the extension to say it is done.
async function apply(page, dialog, name) {
  await dialog.getByRole("button", { name: "Apply this plan" }).click();
  await page.locator(".notifications-toasts", { hasText: "Rewound" }).waitFor();
  step("the rewind is done");
  await screenshot(page, name);
}

main();
