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

// Partner plugins live outside this folder (PLUGINS_PATH) and import the kernel as
// `switchboard/core`. They must share this installation's copies of the kernel and of
// the libraries whose state is global (MikroORM's entity metadata, tsyringe's
// containers), so those always resolve here; any other package a plugin does not
// bring itself is looked up here too.
const ROOT = path.resolve(__dirname, '..');
const SHARED = [/^@mikro-orm\//, /^tsyringe$/, /^reflect-metadata$/, /^@sinclair\/typebox(\/|$)/];
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveForPlugins(request, parent, isMain, options) {
  if (request === 'switchboard' || request.startsWith('switchboard/')) {
    const target = path.join(ROOT, request === 'switchboard' ? 'core' : request.slice('switchboard/'.length));
    return resolveFilename.call(this, target, parent, isMain, options);
  }
  if (SHARED.some((pattern) => pattern.test(request))) {
    return resolveFilename.call(this, request, parent, isMain, { paths: [ROOT] });
  }
  try {
    return resolveFilename.call(this, request, parent, isMain, options);
  } catch (error) {
    const bare = !request.startsWith('.') && !path.isAbsolute(request) && !request.startsWith('node:');
    if (error.code !== 'MODULE_NOT_FOUND' || !bare) throw error;
    return resolveFilename.call(this, request, parent, isMain, { paths: [ROOT] });
  }
};
