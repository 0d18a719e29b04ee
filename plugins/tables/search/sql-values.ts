const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A PostgreSQL array literal of uuids (`{a,b}`) for a `?::uuid[]` parameter. Only uuids
 * pass: the literal is one quoted string, so anything else (a comma, a brace) would
 * change which elements the array has.
 */
export function uuidArray(uuids: readonly string[]): string {
  for (const uuid of uuids) if (!UUID.test(uuid)) throw new Error(`not a uuid: ${JSON.stringify(uuid)}`);
  return `{${uuids.join(',')}}`;
}

/**
 * A statement with `:name` parameters (not `::type` casts, nor anything inside a quoted
 * literal such as a `'[[:digit:]]'` pattern), turned once into the `?` form the ORM's
 * connection takes. Naming the tenant or the table where each condition needs it,
 * rather than selecting them once in a CTE, lets the planner use them as constants: a
 * CTE's value cannot drive an index scan.
 */
export interface NamedStatement<N extends string> {
  text: string;
  params(values: Record<N, unknown>): unknown[];
}

export function named<N extends string>(sql: string): NamedStatement<N> {
  // The connection would take any `?` for a parameter, even inside a literal.
  if (sql.includes('?')) throw new Error('a statement with named parameters may not contain `?`');
  const order: N[] = [];
  // Quoted literals are kept as they are; a parameter is a colon, not after a colon or a word character, then a name.
  const text = sql.replace(/'(?:[^']|'')*'|(?<![:\w]):([a-z][a-z_]*)/g, (match, name: N | undefined) => {
    if (name === undefined) return match;
    order.push(name);
    return '?';
  });
  return { text, params: (values) => order.map((name) => values[name]) };
}
