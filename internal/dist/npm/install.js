"use strict";
// npm's postinstall: each launcher in bin/ becomes a symbolic link to the
// native program, so that what npm put on PATH runs it without starting
// Node first, which every agent's hook call would pay (docs/npm.md).
// Anything that goes wrong leaves that launcher, which works, says so,
// and never fails the install.
const fs = require("fs");
const path = require("path");
const { binary, programs } = require("./lib/platform");

for (const name of programs) {
  const launcher = path.join(__dirname, "bin", name);
  try {
    const target = binary(name);
    fs.accessSync(target, fs.constants.X_OK);
    // A new link renamed over the launcher: a run at this moment finds
    // one or the other, never neither.
    const tmp = `${launcher}.${process.pid}.tmp`;
    fs.symlinkSync(path.relative(path.dirname(launcher), target), tmp);
    fs.renameSync(tmp, launcher);
  } catch (e) {
    process.stderr.write(
      `git-checkpoint: ${name} stays a Node launcher, which adds Node's start to every run: ${e.message}\n`,
    );
  }
}
