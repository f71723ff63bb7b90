"use strict";
// Runs the native program with this process's arguments, standard files
// and environment, and ends as it ended. It is in use only where
// install.js did not put the native binary in the launcher's place (an
// install with --ignore-scripts), and then adds Node's start to every
// run (docs/npm.md).
const { spawn } = require("child_process");
const os = require("os");
const { binary } = require("./platform");

module.exports = function launch(name) {
  let file;
  try {
    file = binary(name);
  } catch (e) {
    process.stderr.write(`${name}: ${e.message}\n`);
    process.exit(1);
  }
  const child = spawn(file, process.argv.slice(2), { stdio: "inherit", argv0: name });
  // A terminal sends SIGINT and SIGQUIT to its whole foreground process
  // group, the program included: it decides, this process waits (as
  // git checkpoint run does). The others are sent to this process
  // alone: pass them on.
  process.on("SIGINT", () => {});
  process.on("SIGQUIT", () => {});
  for (const sig of ["SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2"]) {
    process.on(sig, () => child.kill(sig));
  }
  child.on("error", (e) => {
    process.stderr.write(`${name}: cannot run ${file}: ${e.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      // End by the same signal, so that the caller sees what the shell
      // would have shown; the status a shell gives it if that fails.
      process.removeAllListeners(signal);
      try {
        process.kill(process.pid, signal);
      } catch (e) {}
      process.exit(128 + (os.constants.signals[signal] || 0));
    }
    process.exit(code);
  });
};
