/**
 * The `pg` pool behind an ORM, found from any of its EntityManagers. MikroORM reaches
 * the pool only through Kysely, whose per-query layers (connection provider, result
 * transformation, frozen query objects) cost about 5 µs of a 180 µs read in a profile
 * of bench/api-read; a statement outside a transaction (boundQuery) can go to the pool
 * directly, which checks a client out, runs the query and returns the client as Kysely
 * does. createOrm records the pool when the ORM creates it (driverOptions.onPoolCreated).
 */

/** The part of the ORM's `pg` pool this needs (it is the ORM's own copy of `pg`, so no import of the class). */
export interface PgPool {
  on(event: 'connect', listener: (client: any) => void): unknown;
  query(text: string | object, values: unknown[]): Promise<{ rows: any[] }>;
}

/** Keyed by the ORM's Configuration, which the root EntityManager and every fork share; the pool exists from the first connection on. */
const pools = new WeakMap<object, () => PgPool | undefined>();

export function recordOrmPool(config: object, pool: () => PgPool | undefined): void {
  pools.set(config, pool);
}

/** The pool of the ORM this EntityManager belongs to; undefined until its first connection, or for an ORM not made by createOrm. */
export function ormPool(em: { config: object }): PgPool | undefined {
  return pools.get(em.config)?.();
}
