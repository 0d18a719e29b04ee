import { Client } from 'pg';

/**
 * A bench database handed to a role that is neither superuser nor BYPASSRLS, the README's
 * "one role" setup ("Row-level security"). PostgreSQL skips row-level policies for a
 * superuser, so a bench that connects as `postgres` measures the kernel without their
 * cost; connecting as this role is what makes the policies (and their cost) real.
 *
 * `superuserUrl` points at the database itself, as a superuser. Answers the same URL
 * with this role's credentials. The role is shared by every bench database on the
 * server (made once, kept); the database becomes its own, as its tables will.
 */
export const BENCH_APP_ROLE = 'switchboard_bench_app';
const PASSWORD = 'bench';

/** The extensions migrations ask for that only a superuser may create (README, "Row-level security"). */
const EXTENSIONS = ['pg_trgm', 'btree_gin', 'btree_gist'];

export async function handToAppRole(superuserUrl: string): Promise<string> {
  const url = new URL(superuserUrl);
  const database = url.pathname.slice(1);
  const client = new Client({ connectionString: superuserUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [BENCH_APP_ROLE]);
    // Two benches at once may both find it missing: the loser's duplicate is harmless.
    if (!rowCount) await client.query(`create role ${BENCH_APP_ROLE} login password '${PASSWORD}' nosuperuser nobypassrls`).catch(ignoreDuplicate);
    await client.query(`alter database ${database} owner to ${BENCH_APP_ROLE}`);
    await client.query(`alter schema public owner to ${BENCH_APP_ROLE}`);
    for (const extension of EXTENSIONS) await client.query(`create extension if not exists ${extension}`);
  } finally {
    await client.end();
  }
  url.username = BENCH_APP_ROLE;
  url.password = PASSWORD;
  return url.toString();
}

function ignoreDuplicate(error: { code?: string }): void {
  if (error.code !== '42710' && error.code !== '23505') throw error;
}

/** Whether the bench asks for the application role (BENCH_APP_ROLE=1), so row-level policies apply. */
export function appRoleWanted(): boolean {
  return process.env.BENCH_APP_ROLE === '1';
}
