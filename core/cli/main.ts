import 'reflect-metadata';
import { Pool } from 'pg';
import winston from 'winston';
import { loadConfig } from '../config/load-config';
import { BootError } from '../errors/boot-error';
import { Kernel, ROOT_DIR } from '../kernel/kernel';
import { installedPlugins, loadPlugins } from '../plugin/plugin-source';
import { HttpError } from '../http/http-errors';
import { buildOpenApiDocument } from '../http/openapi';
import type { Scope } from '../http/route';
import type { ProcessRole } from '../services/core-services';
import { parseArgs } from './args';
import { CommandRefused } from './command-refused';
import { pluginCommand } from './plugin-command';
import { deleteTenant } from './tenant-commands';

const HELP = `Usage: switchboard <command>

  start                     API and background work in one process (what npm start runs)
  serve                     the HTTP API only
  worker                    background work only
  migrate                   apply pending database migrations
  tenant create <slug> [--name N]
                            create a tenant; prints {"tenant":{uuid,slug,name},"token":"..."}
  tenant delete <slug> [--wait]
                            delete a tenant: it answers 404 at once, a worker deletes its data;
                            prints {"deletion":{uuid,status,...}} (--wait: deletes here, then prints)
  token create <slug> [--name N] [--scopes read,write]
                            create a token for a tenant; prints {"token":"..."}
  secrets rotate            re-encrypt every stored secret under the newest key of SECRETS_KEY
  plugins                   list the installed plugins in load order
  plugin new <id> [--flow-app] [--dir D]
                            write a plugin folder that loads and passes its own tests (--flow-app: a
                            flow app); D: its folder, by default <first PLUGINS_PATH folder>/<id>,
                            else ./plugins-local/<id>
  plugin check <dir>        what would stop a plugin folder from booting here, found without a
                            server or database; exits 1 when there is anything
  plugin test <dir>...      run the *.test.ts files of plugin folders with this installation's test setup
  config                    print the effective configuration (secrets redacted)
  openapi                   print the OpenAPI 3.1 document of the installed plugins' routes
  help                      this text

Configuration comes from environment variables (PORT, DATABASE_URL, ...), config/*.json
and CONFIG_FILE; see README.md.`;

export async function main(argv: string[]): Promise<number | void> {
  const { positionals, flags } = parseArgs(argv, ['flow-app']);
  const [command, sub, arg] = positionals;
  try {
    switch (command) {
      case 'start':
      case 'serve':
      case 'worker':
        return await runServer(command);
      case 'migrate':
        // Applies pending migrations whatever MIGRATE_ON_START says: that is what it is for.
        return await withKernel({ migrate: true }, async (kernel) => {
          print({ migrations: (await kernel.orm.migrator.getExecuted()).map((m) => m.name) });
        });
      case 'tenant':
        if (sub === 'delete' && arg) return await withKernel(async (kernel) => print(await deleteTenant(kernel, arg, flags.wait === true)));
        if (sub !== 'create' || !arg) return usage('tenant create <slug> [--name N] | tenant delete <slug> [--wait]');
        return await withKernel(async (kernel) => {
          const { tenant, token } = await kernel.tenants.createTenant({ slug: arg, name: stringFlag(flags.name) });
          print({ tenant: { uuid: tenant.uuid, slug: tenant.slug, name: tenant.name }, token });
        });
      case 'token':
        if (sub !== 'create' || !arg) return usage('token create <slug> [--name N] [--scopes read,write]');
        return await withKernel(async (kernel) => {
          const scopes = stringFlag(flags.scopes)?.split(',').map((s) => s.trim()) as Scope[] | undefined;
          if (scopes?.some((s) => s !== 'read' && s !== 'write')) throw new BootError('--scopes takes read, write or read,write');
          const { plaintext } = await kernel.tenants.createToken(arg, { name: stringFlag(flags.name), scopes });
          print({ token: plaintext });
        });
      case 'secrets': {
        if (sub !== 'rotate') return usage('secrets rotate');
        let failed = 0;
        await withKernel(async (kernel) => {
          const pool = new Pool({ connectionString: kernel.orm.config.get('clientUrl'), max: 1 });
          try {
            const report = await kernel.secrets.rotateAll(pool, { logger: kernel.logger });
            failed = report.failed;
            print(report);
          } finally {
            await pool.end();
          }
        });
        if (failed > 0) {
          console.error(`switchboard: ${failed} secret(s) could not be decrypted and were left under their old key; keep that key in SECRETS_KEY`);
          return 1;
        }
        return;
      }
      case 'plugins': {
        const config = loadConfig({ lenient: true });
        const plugins = loadPlugins(installedPlugins(ROOT_DIR, config.core), config.core.disabledPlugins);
        print(plugins.map(({ plugin, origin }) => ({ id: plugin.id, dependsOn: plugin.dependsOn ?? [], origin })));
        return;
      }
      case 'plugin': {
        const result = pluginCommand(sub, positionals.slice(2), flags);
        return typeof result === 'number' ? result : usage(result.usage);
      }
      case 'openapi':
        // The routes exist only once the plugins are initialised, which needs a kernel (and its database).
        return await withKernel({ migrate: false }, async (kernel) => {
          print(buildOpenApiDocument(kernel.registry.list(), { baseDomain: kernel.config.core.baseDomain, port: kernel.config.core.port }));
        });
      case 'config': {
        const preliminary = loadConfig({ lenient: true });
        const plugins = loadPlugins(installedPlugins(ROOT_DIR, preliminary.core), preliminary.core.disabledPlugins);
        const slices = Object.fromEntries(plugins.filter(({ plugin }) => plugin.config).map(({ plugin }) => [plugin.id, plugin.config!]));
        print(loadConfig({ pluginSlices: slices }).redacted());
        return;
      }
      case undefined:
      case 'help':
      case '--help':
        console.log(HELP);
        return;
      default:
        return usage(`unknown command "${command}"`);
    }
  } catch (error) {
    return fail(error);
  }
}

async function runServer(role: ProcessRole): Promise<void> {
  const kernel = await Kernel.boot({ role });
  const shutdown = (signal: string) => {
    kernel.logger.info('shutting down', { signal });
    kernel.stop().then(
      () => process.exit(0),
      (error) => {
        // Written directly: the logger's stream would not flush before process.exit.
        process.stderr.write(`shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await kernel.start();
}

/** Boots a kernel without HTTP (logs to stderr, so stdout carries only the JSON answer). */
async function withKernel(run: (kernel: Kernel) => Promise<void>): Promise<void>;
async function withKernel(options: { migrate: boolean }, run: (kernel: Kernel) => Promise<void>): Promise<void>;
async function withKernel(...args: [(kernel: Kernel) => Promise<void>] | [{ migrate: boolean }, (kernel: Kernel) => Promise<void>]): Promise<void> {
  const [options, run] = args.length === 1 ? [{}, args[0]] : args;
  const kernel = await Kernel.boot({
    ...options,
    role: 'cli',
    logTransports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] })],
  });
  try {
    await run(kernel);
  } finally {
    await kernel.stop();
  }
}

function print(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

function stringFlag(value: string | true | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function usage(problem: string): number {
  console.error(`switchboard: ${problem}\n\n${HELP}`);
  return 2;
}

function fail(error: unknown): number {
  if (error instanceof CommandRefused) {
    console.error(`switchboard: ${error.message}`);
    return 2;
  }
  if (error instanceof BootError) console.error(`switchboard: ${error.message}`);
  else if (error instanceof HttpError) console.error(`switchboard: ${error.message}`);
  else console.error(error);
  return 1;
}
