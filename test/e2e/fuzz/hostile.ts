import fc from 'fast-check';

/**
 * What hostile clients send, and how to put it into a request. A value that JSON cannot
 * carry as such (a number past 2^53, one past 1e308) travels as a `Raw` and is spliced
 * into the JSON text, so the server's parser sees exactly those digits.
 */
export class Raw {
  constructor(readonly json: string) {}
}

export const ONE_MIB = 1024 * 1024;
export const DEEP = 5_000;
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const;

/** Values put in place of one member of an otherwise valid body. */
export function hostileValues(ids: { own: string[]; foreign: string[] }): unknown[] {
  return [
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00y',
    '',
    ' ',
    'NaN',
    'Infinity',
    '-1',
    '1e308',
    '9007199254740993',
    '0x1F',
    '../../etc/passwd',
    "'; drop table tenants; --",
    '{{constructor.constructor("return process")()}}',
    'x'.repeat(70_000),
    1e308,
    -1e308,
    -1,
    0,
    -0.5,
    2 ** 31,
    new Raw('9007199254740993'),
    new Raw('1e400'),
    new Raw('-1e400'),
    new Raw('1e-400'),
    true,
    null,
    [],
    [[]],
    {},
    { a: { b: {} } },
    protoObject('__proto__', { polluted: true }),
    protoObject('constructor', { prototype: { polluted: true } }),
    ...ids.own.map((id) => id.toUpperCase()),
    ...ids.foreign,
    ...ids.foreign.map((id) => id.toUpperCase()),
    [...ids.foreign.slice(0, 2)],
  ];
}

/** An object whose own, enumerable member has a prototype's name (JSON.stringify keeps it). */
export function protoObject(name: string, value: unknown, base: Record<string, unknown> = {}): Record<string, unknown> {
  const copy = { ...base };
  Object.defineProperty(copy, name, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** JSON text of a value that may hold `Raw` members. */
export function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, inner) => {
    if (inner instanceof Raw) {
      raws.push(inner.json);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return inner;
  });
  if (text === undefined) return 'null';
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_, i: string) => raws[Number(i)]);
}

/** Every place in a value a member can be swapped: `[]` is the value itself. */
export function memberPaths(value: unknown, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (Array.isArray(value)) value.forEach((item, i) => memberPaths(item, [...at, i], out));
  else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) memberPaths(inner, [...at, key], out);
  return out;
}

/** A copy of `value` with the member at `path` replaced. */
export function replaceAt(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? replaceAt(item, rest, replacement) : item));
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const inner = replaceAt(copy[head as string], rest, replacement);
  return protoObject(head as string, inner, copy);
}

/** Objects of a value (the root included) where a prototype-named member can go. */
export function objectPaths(value: unknown): Array<Array<string | number>> {
  const paths: Array<Array<string | number>> = [];
  const walk = (node: unknown, at: Array<string | number>) => {
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...at, i]));
    else if (node && typeof node === 'object') {
      paths.push(at);
      for (const [key, inner] of Object.entries(node)) walk(inner, [...at, key]);
    }
  };
  walk(value, []);
  return paths;
}

/** The member at `path` of `value`, plus a prototype-named member. */
export function withPrototypeMember(value: unknown, path: Array<string | number>, name: string, member: unknown): unknown {
  if (path.length === 0) return protoObject(name, member, (value ?? {}) as Record<string, unknown>);
  let node: any = value;
  for (const step of path) node = node?.[step];
  return replaceAt(value, path, protoObject(name, member, node ?? {}));
}

/** Whole-body texts no route should take: each must be refused (4xx), never crash. */
export function hostileBodies(): Array<{ label: string; body: string; contentType?: string; headers?: Record<string, string> }> {
  return [
    { label: 'arrays nested 5,000 deep', body: '['.repeat(DEEP) + ']'.repeat(DEEP) },
    { label: 'objects nested 5,000 deep', body: '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP) },
    { label: 'a __proto__ member at the root', body: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}' },
    { label: 'a NUL in a member name', body: '{"a\\u0000b":1}' },
    { label: 'a lone surrogate in a member name', body: '{"\\ud800":1}' },
    { label: 'not JSON', body: '{"a":' },
    { label: 'a bare string', body: '"\\u0000"' },
    { label: 'a number past 1e308', body: '1e400' },
    { label: 'null', body: 'null' },
    { label: 'an empty body', body: '' },
    { label: 'a text/plain body', body: 'hello', contentType: 'text/plain' },
    { label: 'a UTF-16 charset', body: '{}', contentType: 'application/json; charset=utf-16' },
    { label: 'gzip that is not gzip', body: '{}', headers: { 'content-encoding': 'gzip' } },
    { label: 'a duplicate member', body: '{"a":1,"a":{"__proto__":[]}}' },
  ];
}

/** JSON of a 1 MiB string member: past HTTP_BODY_LIMIT (1 MiB by default), so 413 (or 422). */
export const oneMibBody = (): string => `{"x":"${'a'.repeat(ONE_MIB)}"}`;

/** What a query value or path segment may be made of, already percent-encoded as a client would send it (or mis-encode it). */
export function hostileSegments(ids: { own: string[]; foreign: string[] }): string[] {
  return [
    '%00',
    'a%00b',
    '%ED%A0%80', // a lone surrogate as UTF-8: not valid UTF-8
    '%zz', // not percent-encoding at all
    '%',
    '..',
    '%2e%2e%2f%2e%2e',
    '-1',
    '1e308',
    '9007199254740993',
    'NaN',
    '__proto__',
    'constructor',
    'x'.repeat(5_000),
    ...ids.own.slice(0, 2).map((id) => id.toUpperCase()),
    ...ids.foreign.slice(0, 3),
    ...ids.foreign.slice(0, 1).map((id) => id.toUpperCase()),
  ];
}

/** Query strings for a member `name`: deep, prototype-polluting and array forms the `qs` parser accepts. */
export function hostileQueryForms(name: string): string[] {
  const n = encodeURIComponent(name);
  return [
    `${n}[]=a&${n}[]=b`,
    `${n}[__proto__][polluted]=1`,
    `${n}[constructor][prototype][polluted]=1`,
    `${n}${'[a]'.repeat(DEEP)}=1`,
    `${n}=1&${n}=2`,
    `__proto__[polluted]=1&${n}=1`,
    `${n}[0]=1&${n}[9999]=2`,
  ];
}

/** A hostile value at a random member of `base`: what the random phase draws, with what was done. */
export function mutatedBodies(base: fc.Arbitrary<unknown>, values: unknown[]): fc.Arbitrary<{ body: unknown; what: string }> {
  return fc.tuple(base, fc.nat(), fc.constantFrom(...values), fc.constantFrom(...PROTOTYPE_NAMES), fc.boolean()).map(([body, pick, value, protoName, proto]) => {
    if (proto && body && typeof body === 'object') {
      const objects = objectPaths(body);
      if (objects.length > 0) {
        const at = objects[pick % objects.length];
        return { body: withPrototypeMember(body, at, protoName, value), what: `member ${protoName} at ${at.join('.') || 'the root'} := ${describe(value)}` };
      }
    }
    const paths = memberPaths(body);
    const at = paths[pick % paths.length];
    return { body: replaceAt(body, at, value), what: `body ${at.join('.') || '(the whole body)'} := ${describe(value)}` };
  });
}

/** A short, printable account of a hostile value for a finding's label. */
export function describe(value: unknown): string {
  const text = value instanceof Raw ? value.json : toJson(value);
  return text.length > 40 ? `${text.slice(0, 40)}… (${text.length} chars)` : text;
}
