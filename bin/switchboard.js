#!/usr/bin/env node
'use strict';
// The `switchboard` command (npm start, npx switchboard ...). See `switchboard help`.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  console.error(
    `Switchboard needs Node.js 24 or newer; this is ${process.version}.\n` +
      'Run it through npm (npm start, npx switchboard), which uses the Node.js 24 installed with the project.',
  );
  process.exit(1);
}
require('./register-ts');
require('../core/cli/main.ts')
  .main(process.argv.slice(2))
  .then((code) => {
    if (typeof code === 'number') process.exitCode = code;
  });
