import path from 'node:path';
import { loadConfig } from '../config/load-config';
import { checkPlugin } from './plugin-check';
import { newPlugin } from './plugin-new';
import { testPlugins } from './plugin-test';

export const PLUGIN_USAGE = 'plugin new <id> [--flow-app] [--dir D] | plugin check <dir> | plugin test <dir>...';

/** How the CLI answers a `plugin` command: an exit code, or `usage` with what is missing (main prints the help). */
export type PluginCommandResult = number | { usage: string };

const shown = (dir: string, cwd: string) => path.relative(cwd, dir) || '.';

/** `switchboard plugin new|check|test`: tools for writing a plugin; none boots a server or needs a database. */
export function pluginCommand(sub: string | undefined, args: string[], flags: Record<string, string | true>, cwd = process.cwd()): PluginCommandResult {
  const settings = loadConfig({ lenient: true }).core;
  switch (sub) {
    case 'new': {
      const [id] = args;
      if (!id || args.length > 1 || flags.dir === true) return { usage: 'plugin new <id> [--flow-app] [--dir D]' };
      const kind = flags['flow-app'] ? 'flow-app' : 'plugin';
      const { dir, files } = newPlugin({ id, kind, dir: typeof flags.dir === 'string' ? flags.dir : undefined, cwd, pluginsPath: settings.pluginsPath });
      const where = shown(dir, cwd);
      const loaded = settings.pluginsPath.some((folder) => path.resolve(cwd, folder) === path.dirname(dir));
      const next = [
        [`npx switchboard plugin check ${where}`, 'what would stop it from booting'],
        [`npx switchboard plugin test ${where}`, 'its tests'],
        [`npx tsc -p ${path.join(where, 'tsconfig.json')}`, 'its types'],
        loaded ? ['npm start', 'runs it (PLUGINS_PATH names its folder)'] : [`PLUGINS_PATH=${shown(path.dirname(dir), cwd)} npm start`, 'runs it'],
      ];
      const width = Math.max(...next.map(([command]) => command.length));
      console.log(`Wrote ${kind === 'flow-app' ? 'the flow app' : 'the plugin'} "${id}" in ${where}: ${files.join(', ')}\n\nNext:`);
      for (const [command, what] of next) console.log(`  ${command.padEnd(width)}  ${what}`);
      return 0;
    }
    case 'check': {
      const [dir] = args;
      if (!dir || args.length > 1) return { usage: 'plugin check <dir>' };
      const { id, dir: folder, problems } = checkPlugin(path.resolve(cwd, dir), settings);
      const named = id ? `plugin "${id}" (${shown(folder, cwd)})` : shown(folder, cwd);
      if (problems.length === 0) {
        console.log(`ok: ${named}`);
        return 0;
      }
      console.error([`${named}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`, ...problems.map((problem) => `  - ${problem}`)].join('\n'));
      return 1;
    }
    case 'test':
      if (args.length === 0) return { usage: 'plugin test <dir>...' };
      return testPlugins(args, cwd);
    default:
      return { usage: sub ? `unknown plugin command "${sub}": ${PLUGIN_USAGE}` : PLUGIN_USAGE };
  }
}
