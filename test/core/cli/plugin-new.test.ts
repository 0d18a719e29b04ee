import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { defaultPluginDir, newPlugin, spellingsOf } from '../../../core/cli/plugin-new';
import { parseApiVersion, PLUGIN_API_VERSION } from '../../../core/plugin/plugin-api-version';
import { CLI_TEST_TIMEOUT_MS, ROOT, switchboard } from './cli-helpers';

jest.setTimeout(CLI_TEST_TIMEOUT_MS);

const TEMPLATES = path.join(ROOT, 'core/cli/plugin-templates');
const { major, minor } = parseApiVersion(PLUGIN_API_VERSION)!;

/** Outside the repository, as a partner's folder would be. */
let temp: string;
beforeAll(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-plugin-new-'));
});
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
const filesOf = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesOf(path.join(dir, entry.name)).map((file) => path.join(entry.name, file)) : [entry.name]));

describe('switchboard plugin new', () => {
  it.each(['plugin', 'flow-app'] as const)('writes the %s template with every spelling of its id replaced by the new id’s', (kind) => {
    const dir = path.join(temp, `zeta-crm2-${kind}`);
    const { files } = newPlugin({ id: 'zeta-crm2', kind, dir, cwd: temp, pluginsPath: [] });
    expect(files).toEqual([...filesOf(path.join(TEMPLATES, kind)), 'tsconfig.json'].sort());
    expect(filesOf(dir).sort()).toEqual(files);

    const template = Object.values(spellingsOf('acme-leads'));
    const ours = spellingsOf('zeta-crm2');
    expect(ours).toEqual({ kebab: 'zeta-crm2', snake: 'zeta_crm2', camel: 'zetaCrm2', pascal: 'ZetaCrm2', title: 'Zeta Crm2', constant: 'ZETA_CRM2' });
    for (const file of files) {
      const text = read(dir, file);
      for (const spelling of template) expect({ file, found: text.includes(spelling) }).toEqual({ file, found: false });
    }
    // The manifest is the one source of the id and the dependencies: the code repeats neither.
    expect(read(dir, 'index.ts')).not.toMatch(/\bid: '|dependsOn:/);

    const manifest = JSON.parse(read(dir, 'plugin.json'));
    expect(manifest).toEqual({
      id: 'zeta-crm2',
      description: expect.stringContaining('Zeta Crm2'),
      apiVersion: `${major}.${minor}`,
      dependsOn: kind === 'flow-app' ? ['flows'] : [],
    });
  });

  it('names the flow app after the plugin: uid, name and identifiers', () => {
    const dir = path.join(temp, 'names');
    newPlugin({ id: 'north-wind', kind: 'flow-app', dir, cwd: temp, pluginsPath: [] });
    expect(read(dir, 'app.ts')).toMatch(/export const northWindApp = defineFlowApp\(\{\n {2}uid: 'north_wind',\n {2}name: 'North Wind',/);
    expect(read(dir, 'index.ts')).toContain('definePlugin({ ...contributeFlowApp(northWindApp) })');
  });

  it('is what the tutorial of docs/plugins.md shows, file by file', () => {
    const guide = read(ROOT, 'docs/plugins.md');
    const shown = [...guide.matchAll(/```ts\n\/\/ acme-leads\/(\S+)\n([\s\S]*?)```/g)].map(([, file, code]) => ({ file, code }));
    expect(new Set(shown.map(({ file }) => file))).toEqual(new Set(filesOf(path.join(TEMPLATES, 'flow-app')).filter((file) => file.endsWith('.ts'))));
    for (const { file, code } of shown) expect({ file, shown: read(path.join(TEMPLATES, 'flow-app'), file).includes(code) }).toEqual({ file, shown: true });

    const manifest = /```json\n(\{\n {2}"id": "acme-leads",[\s\S]*?)```/.exec(guide)![1];
    expect(JSON.parse(manifest)).toEqual({ ...JSON.parse(read(path.join(TEMPLATES, 'flow-app'), 'plugin.json')), apiVersion: `${major}.${minor}` });
  });

  it('maps switchboard/* to this installation in the plugin’s tsconfig.json, wherever the folder is', () => {
    const dir = path.join(temp, 'typed');
    newPlugin({ id: 'typed', kind: 'plugin', dir, cwd: temp, pluginsPath: [] });
    const tsconfig = JSON.parse(read(dir, 'tsconfig.json'));
    const resolved = (relative: string) => path.resolve(dir, relative);
    expect(resolved(tsconfig.extends)).toBe(path.join(ROOT, 'tsconfig.json'));
    expect(resolved(tsconfig.compilerOptions.paths['switchboard/core'][0])).toBe(path.join(ROOT, 'core/index.ts'));
    expect(resolved(tsconfig.compilerOptions.paths['switchboard/flows/testing'][0])).toBe(path.join(ROOT, 'plugins/flows/testing-kit.ts'));
    expect(tsconfig.include).toEqual(['.']);
  });

  it('writes into the first PLUGINS_PATH folder, else ./plugins-local, unless --dir says where', async () => {
    expect(defaultPluginDir('crm', '/srv/app', ['extra', '/opt/more'])).toBe('/srv/app/extra/crm');
    expect(defaultPluginDir('crm', '/srv/app', [])).toBe('/srv/app/plugins-local/crm');

    const local = await switchboard(['plugin', 'new', '--flow-app', 'local-crm'], {}, temp);
    expect(local).toMatchObject({ code: 0, stderr: '' });
    expect(local.stdout).toContain('Wrote the flow app "local-crm" in plugins-local/local-crm: app.ts, auth.ts');
    expect(local.stdout).toContain('PLUGINS_PATH=plugins-local npm start');
    expect(JSON.parse(read(path.join(temp, 'plugins-local/local-crm'), 'plugin.json')).dependsOn).toEqual(['flows']);

    fs.mkdirSync(path.join(temp, 'partner'));
    const configured = await switchboard(['plugin', 'new', 'configured'], { PLUGINS_PATH: 'partner' }, temp);
    expect(configured.code).toBe(0);
    expect(fs.existsSync(path.join(temp, 'partner/configured/index.ts'))).toBe(true);

    const placed = await switchboard(['plugin', 'new', 'placed', '--dir', 'elsewhere/placed'], {}, temp);
    expect(placed.code).toBe(0);
    expect(fs.existsSync(path.join(temp, 'elsewhere/placed/test/plugin.test.ts'))).toBe(true);
  });

  it('refuses with exit code 2 and one line, writing nothing: an invalid id, a core setting’s name, an installed plugin’s id, an existing folder', async () => {
    fs.mkdirSync(path.join(temp, 'taken'));
    const cases: Array<[string[], string]> = [
      [['plugin', 'new', 'Acme_CRM'], 'switchboard: plugin id "Acme_CRM" must be lower-case letters, digits and dashes, starting with a letter, at most 63 characters\n'],
      [['plugin', 'new', 'port'], 'switchboard: plugin id "port" is the name of a core setting, under which the plugin\'s own settings would go: choose another\n'],
      [['plugin', 'new', 'flows', '--flow-app'], `switchboard: plugin id "flows" is taken by the installed plugin in ${path.join(ROOT, 'plugins/flows')}\n`],
      [['plugin', 'new', 'fresh', '--dir', 'taken'], `switchboard: ${path.join(temp, 'taken')} already exists: remove it or choose another folder with --dir\n`],
    ];
    for (const [args, stderr] of cases) expect(await switchboard(args, {}, temp)).toEqual({ code: 2, stdout: '', stderr });
    expect(fs.readdirSync(path.join(temp, 'taken'))).toEqual([]);
    expect(fs.existsSync(path.join(temp, 'plugins-local/fresh'))).toBe(false);

    const missing = await switchboard(['plugin', 'new', '--flow-app'], {}, temp);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^switchboard: plugin new <id> \[--flow-app\] \[--dir D\]\n/);
  });
});

const run = promisify(execFile);

/** A command's exit code and output, whatever the code. */
async function exec(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number; output: string }> {
  return run(file, args, { ...options, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
  );
}

/** `switchboard plugin test`, on this run's database server (the jest global setup's, or the one the run was given). */
const pluginTest = (dirs: string[]) =>
  switchboard(['plugin', 'test', ...dirs], { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? '' }, temp).then(({ code, stdout, stderr }) => ({
    code,
    output: stdout + stderr,
  }));

describe('a plugin written by plugin new', () => {
  let flowApp: string;
  let plain: string;
  beforeAll(() => {
    flowApp = newPlugin({ id: 'tested-crm', kind: 'flow-app', dir: path.join(temp, 'generated/tested-crm'), cwd: temp, pluginsPath: [] }).dir;
    plain = newPlugin({ id: 'tested-plain', kind: 'plugin', dir: path.join(temp, 'generated/tested-plain'), cwd: temp, pluginsPath: [] }).dir;
  });

  it('type-checks with its own tsconfig.json', async () => {
    for (const dir of [flowApp, plain]) {
      const checked = await exec(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(dir, 'tsconfig.json')], { cwd: temp });
      expect(checked).toEqual({ code: 0, output: '' });
    }
  });

  it('passes its own tests, run by plugin test with this installation’s setup', async () => {
    const tested = await pluginTest([flowApp, plain]);
    expect(tested.output).toMatch(/Test Suites: 2 passed, 2 total/);
    expect(tested.output).not.toMatch(/failed/);
    expect(tested.code).toBe(0);
  }, 300_000);

  it('fails them when its code and its test disagree (plugin test exits 1)', async () => {
    const broken = newPlugin({ id: 'broken-plain', kind: 'plugin', dir: path.join(temp, 'generated/broken-plain'), cwd: temp, pluginsPath: [] }).dir;
    // The route now greets the tenant by its uuid, which its test does not expect.
    fs.writeFileSync(path.join(broken, 'index.ts'), read(broken, 'index.ts').replace('${tenant.slug}`', '${tenant.uuid}`'));
    const tested = await pluginTest([broken]);
    expect(tested.output).toMatch(/Tests: +1 failed/);
    expect(tested.code).toBe(1);
  }, 300_000);
});
