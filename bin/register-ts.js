'use strict';
// Lets Node load Switchboard's TypeScript sources (and partner plugins written in
// TypeScript) without a build step. Node's own type stripping cannot run legacy
// decorators with metadata, which tsyringe and MikroORM need, so .ts files are
// compiled by swc with the same options the tests use (.swcrc).
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const swc = require('@swc/core');

const options = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '.swcrc'), 'utf8'));
delete options.$schema;

function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = swc.transformSync(source, { ...options, filename, swcrc: false, configFile: false });
  module._compile(code, filename);
}

Module._extensions['.ts'] = compileTypeScript;
