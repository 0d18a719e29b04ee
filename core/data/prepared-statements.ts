import { createHash } from 'node:crypto';

/**
 * Statements that run on a hot path (a message's inbox row, an outbox insert, a flow
 * execution's rows) as named prepared statements: PostgreSQL parses and plans such a
 * statement once per connection, not on every call. Measured on bench/flows: planning
 * alone was about 40% of the database's time per execution while every statement went
 * as fresh text.
 *
 *   const CLAIM = preparedStatement('bus.claim', 'update ... where id = $1 ...');
 *   await boundQuery(em, CLAIM, [id]);
 *
 * A statement is declared once, at module level, with `$1, $2, ...` placeholders and a
 * text that does not change from call to call (a list of values travels as one array or
 * JSON parameter, not as a varying number of placeholders): the set of prepared
 * statements a connection holds is then bounded by the code. Every connection of the
 * ORM's pool names a registered text when it runs it (usePreparedStatements, installed
 * by createOrm); any other text runs as before.
 *
 * Behind a pooler in transaction mode (PgBouncer before 1.21) a connection's prepared
 * statements are not there on the next transaction: set DATABASE_PREPARED_STATEMENTS=false.
 */
export interface PreparedStatement {
  /** Unique among prepared statements. */
  readonly name: string;
  readonly text: string;
}

export interface PreparedStatementOptions {
  /**
   * The statement reads and writes only tables without a tenant policy (the bus's outbox
   * and inbox): outside a transaction it runs under whatever `app.tenant_id` its pooled
   * connection has, instead of setting it to none first (row-level-security.ts). Spares
   * the relay's and the inbox check's statements two round trips whenever they share a
   * connection with a tenant's work (measured on bench/runtime's webhook deliveries: about
   * 1.9 settings a delivery). test/core/data/tenant-neutral-statements.test.ts checks
   * every such statement names no table with a policy.
   */
  tenantNeutral?: boolean;
}

/** PostgreSQL keeps the first 63 bytes of a prepared statement's name (NAMEDATALEN - 1). */
const SERVER_NAME_BYTES = 63;

/** The name the server knows a statement by: the declared one, or, when that is too long to stay unique there, a shortened one with a hash of the whole. */
function serverName(name: string): string {
  if (Buffer.byteLength(name) <= SERVER_NAME_BYTES) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
  return `${Buffer.from(name).subarray(0, 40).toString('utf8').replace(/\uFFFD+$/, '')}~${hash}`;
}

const namesByText = new Map<string, string>();
const textsByName = new Map<string, string>();
const tenantNeutralTexts = new Set<string>();

/** Declares a prepared statement. The same name with another text is an error (two modules chose one name). */
export function preparedStatement(name: string, text: string, options: PreparedStatementOptions = {}): PreparedStatement {
  const known = textsByName.get(name);
  if (known !== undefined && known !== text) throw new Error(`prepared statement "${name}" is declared twice with different texts`);
  textsByName.set(name, text);
  namesByText.set(text, serverName(name));
  if (options.tenantNeutral) tenantNeutralTexts.add(text);
  return Object.freeze({ name, text });
}

/** Whether this text is a statement declared `tenantNeutral`. */
export function isTenantNeutral(text: string): boolean {
  return tenantNeutralTexts.has(text);
}

/** Every statement declared `tenantNeutral` (for the test that checks the tables they name). */
export function tenantNeutralStatements(): string[] {
  return [...tenantNeutralTexts];
}

/** The part of a `pg` client this needs (the ORM's `pg` is its own copy, so no import of the class). */
interface PgClient {
  query(...args: any[]): any;
}

/**
 * Makes a pooled `pg` client run registered texts as named statements. The ORM's query
 * layer (Kysely) calls `client.query(text, values)`; a registered text goes on as
 * `{name, text, values}`, which `pg` prepares on its first use on this connection and
 * then only binds and executes.
 */
export function usePreparedStatements(client: PgClient): void {
  const query = client.query;
  client.query = function (this: PgClient, config: unknown, values?: unknown, callback?: unknown) {
    if (typeof config === 'string' && Array.isArray(values)) {
      const name = namesByText.get(config);
      if (name !== undefined) return query.call(this, { name, text: config, values }, callback);
    }
    // eslint-disable-next-line prefer-rest-params
    return query.apply(this, arguments as unknown as unknown[]);
  };
}
