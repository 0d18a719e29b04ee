import fs from 'node:fs';
import path from 'node:path';
import { coreConfigSchema } from '../../../core/config/config-schema';
import { loadPlugins } from '../../../core/plugin/plugin-source';

/**
 * README.md's configuration tables are written by hand; this keeps them true to the
 * schemas (the kernel's and the built-in plugins'): one row per setting (environment
 * variable, config-file key, default) and no row for a setting that does not exist.
 */
interface Setting {
  key: string;
  env: string;
  default: unknown;
}

function settingsOf(schema: Record<string, any>, prefix = ''): Setting[] {
  return Object.entries(schema).flatMap(([name, value]) => {
    const key = prefix ? `${prefix}.${name}` : name;
    if (value && typeof value === 'object' && 'default' in value) return value.env ? [{ key, env: value.env, default: value.default }] : [];
    return settingsOf(value, key);
  });
}

/** How the README writes a default: `8080`, `localhost`, or "empty". */
function rendered(value: unknown): string {
  if (value === '' || (Array.isArray(value) && value.length === 0)) return 'empty';
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

const readme = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
const rows = new Map(
  section
    .split('\n')
    .filter((line) => /^\| `[A-Z0-9_]+` \|/.test(line))
    .map((line) => {
      const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
      return [cells[0].replace(/`/g, ''), cells] as const;
    }),
);
// The core settings, and those of the built-in plugins the README lists (under their plugin id, from their manifests).
const LISTED = ['flows', 'tables', 'conversations', 'evaluation', 'contacts', 'runtime', 'agent-webhooks', 'channels', 'telephony', 'storage', 'transcriptions'];
const pluginsDir = path.join(__dirname, '..', '..', '..', 'plugins');
const listed = loadPlugins(fs.readdirSync(pluginsDir).map((dir) => path.join(pluginsDir, dir)).filter((dir) => fs.existsSync(path.join(dir, 'plugin.json')))).filter(({ plugin }) => LISTED.includes(plugin.id));
const settings = [...settingsOf(coreConfigSchema), ...listed.flatMap(({ plugin }) => settingsOf(plugin.config ?? {}, plugin.id))];

describe('README.md configuration table', () => {
  it('is there', () => {
    expect(section.startsWith('## Configuration')).toBe(true);
    expect(rows.size).toBeGreaterThan(0);
  });

  it('has a row for every setting', () => {
    expect(settings.filter((s) => !rows.has(s.env)).map((s) => s.env)).toEqual([]);
  });

  it("gives each setting's config-file key and default as the schema does", () => {
    const wrong = settings
      .filter((s) => rows.has(s.env))
      .flatMap((s) => {
        const [, key, defaults, meaning] = rows.get(s.env)!;
        const problems: string[] = [];
        if (key !== `\`${s.key}\``) problems.push(`${s.env}: key is ${key}, expected \`${s.key}\``);
        if (defaults !== rendered(s.default)) problems.push(`${s.env}: default is ${defaults}, expected ${rendered(s.default)}`);
        if (!meaning) problems.push(`${s.env}: no meaning given`);
        return problems;
      });
    expect(wrong).toEqual([]);
  });

  it('has no row for a setting the schema does not have', () => {
    const known = new Set(settings.map((s) => s.env));
    expect([...rows.keys()].filter((env) => !known.has(env))).toEqual([]);
  });
});
