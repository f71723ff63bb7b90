"use strict";
// Where the native programs of this system are: in the package of
// git-checkpoint's that npm installed for it, one of its optional
// dependencies (packages.json, written by make dist, names them).
const path = require("path");
const { programs, packages } = require("./packages.json");

function binary(name) {
  const system = process.platform + "-" + process.arch;
  const pkg = packages[system];
  if (!pkg) {
    throw new Error(
      `git-checkpoint has no binaries for ${system} (only ${Object.keys(packages).join(", ")}): ` +
        "build it from source with Go, as its README says",
    );
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(pkg + "/package.json"));
  } catch (e) {
    throw new Error(
      `${pkg}, the package with the binaries for ${system}, is not installed ` +
        "(npm leaves optional dependencies out under --omit=optional): " +
        "run npm install -g git-checkpoint again without it",
    );
  }
  return path.join(dir, "bin", name);
}

module.exports = { binary, programs };
