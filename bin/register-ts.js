'use strict';
// Lets Node load Switchboard's TypeScript sources (and partner plugins written in
// TypeScript) without a build step. Node's own type stripping cannot run legacy
// decorators with metadata, which tsyringe and MikroORM need, so .ts files are
// compiled by swc with the same options the tests use (.swcrc).
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const swcrc = fs.readFileSync(path.join(__dirname, '..', '.swcrc'), 'utf8');
const options = JSON.parse(swcrc);
delete options.$schema;

/**
 * Compiled files are kept on disk, keyed by their source, the options and swc's
 * version, so a restart compiles only what changed and, when nothing did, never loads
 * swc: a server that starts from the cache measured about 25 MB less resident memory
 * (swc's native module and what compiling every file leaves in the heap) and boots
 * faster. SWITCHBOARD_TS_CACHE names another folder; `off` compiles every time. A
 * folder that cannot be written (a read-only install) only means compiling every time.
 */
const CACHE_DIR = process.env.SWITCHBOARD_TS_CACHE === 'off' ? null : process.env.SWITCHBOARD_TS_CACHE || path.join(__dirname, '..', 'node_modules', '.cache', 'switchboard-ts');
const CACHE_SALT = `${require('@swc/core/package.json').version}\n${swcrc}`;
let swc = null;
let cacheWritable = CACHE_DIR !== null;

function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const cached = CACHE_DIR && path.join(CACHE_DIR, `${crypto.createHash('sha256').update(CACHE_SALT).update(filename).update('\0').update(source).digest('hex')}.js`);
  let code = cached ? readCached(cached) : null;
  if (code === null) {
    swc ??= require('@swc/core');
    code = swc.transformSync(source, { ...options, filename, swcrc: false, configFile: false }).code;
    if (cached) writeCached(cached, code);
  }
  module._compile(code, filename);
}

function readCached(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Written whole or not at all (a temporary file renamed), so that processes starting together never read half a file. */
function writeCached(file, code) {
  if (!cacheWritable) return;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, code);
    fs.renameSync(temporary, file);
  } catch {
    cacheWritable = false;
  }
}

Module._extensions['.ts'] = compileTypeScript;

// Partner plugins live outside this folder (PLUGINS_PATH, PLUGINS_PACKAGES) and import
// the kernel as `switchboard/core`. They must share this installation's copies of the
// kernel and of the libraries whose state is global (MikroORM's entity metadata,
// tsyringe's containers), so those always resolve here; any other package a plugin does
// not bring itself is looked up here too.
const ROOT = path.resolve(__dirname, '..');
const SHARED = [/^@mikro-orm\//, /^tsyringe$/, /^reflect-metadata$/, /^@sinclair\/typebox(\/|$)/];
// `switchboard/...` resolves as this package's own files import its name: through the
// `exports` of its package.json (the plugin API), wherever the importing file is.
const SELF = new Module(path.join(ROOT, 'package.json'));
SELF.filename = SELF.id;
SELF.paths = Module._nodeModulePaths(ROOT);
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveForPlugins(request, parent, isMain, options) {
  if (request === 'switchboard' || request.startsWith('switchboard/')) {
    return resolveFilename.call(this, request, SELF, isMain);
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
