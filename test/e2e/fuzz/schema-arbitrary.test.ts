import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { arbitraryFor, type JsonSchema } from './schema-arbitrary';
import { memberPaths, protoObject, replaceAt, Raw, toJson, withPrototypeMember } from './hostile';

/** The fuzzer's generator is only useful if what it calls "valid" is: ajv checks it. */
describe('JSON Schema -> fast-check arbitrary', () => {
  const root: JsonSchema = {
    components: {
      schemas: {
        Step: {
          type: 'object',
          required: ['key'],
          properties: { key: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,30}$' }, next: { $ref: '#/components/schemas/Step' } },
          additionalProperties: false,
        },
      },
    },
  };
  const schema: JsonSchema = {
    type: 'object',
    required: ['name', 'kind', 'count', 'step'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 10 },
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date-time' },
      id: { type: 'string', format: 'uuid' },
      kind: { type: 'string', enum: ['a', 'b'] },
      fixed: { const: 42 },
      count: { type: 'integer', minimum: 1, maximum: 5 },
      ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3, uniqueItems: true },
      either: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] },
      one: { oneOf: [{ type: 'boolean' }, { type: 'integer', minimum: 0 }] },
      map: { type: 'object', additionalProperties: { type: 'integer' } },
      step: { $ref: '#/components/schemas/Step' },
      stamp: { type: 'string', readOnly: true, const: 'server' },
      agent: { type: 'string', format: 'uuid', 'x-resource': 'agents.agent' },
    },
  };

  it('generates only values the schema accepts, $ref cycles included', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'root', ...root });
    const validate = ajv.compile({ ...schema, properties: { ...schema.properties, step: { $ref: 'root#/components/schemas/Step' } } });
    const agent = '0190f5a2-7c1e-7d3a-9b2f-1e2d3c4b5a69';
    fc.assert(
      fc.property(arbitraryFor(schema, { root, resourceId: (kind) => (kind === 'agents.agent' ? agent : undefined) }), (value) => {
        expect(validate(value) ? null : validate.errors).toBeNull();
        expect(value).not.toHaveProperty('stamp'); // readOnly: the API ignores it, so the generator leaves it out
      }),
      { numRuns: 300 },
    );
  });

  it('gives members that name a resource the caller’s own id most of the time', () => {
    const ids = fc.sample(arbitraryFor({ type: 'string', format: 'uuid', 'x-resource': 'agents.agent' }, { resourceId: () => 'mine' }), { seed: 1, numRuns: 200 });
    expect(ids.filter((id) => id === 'mine').length).toBeGreaterThan(100);
    expect(ids.some((id) => id !== 'mine')).toBe(true);
  });
});

describe('hostile mutations', () => {
  it('keeps a prototype-named member as an own member of the JSON', () => {
    expect(toJson(protoObject('__proto__', { polluted: true }, { a: 1 }))).toBe('{"a":1,"__proto__":{"polluted":true}}');
    expect(toJson(withPrototypeMember({ a: { b: 1 } }, ['a'], 'constructor', 1))).toBe('{"a":{"b":1,"constructor":1}}');
  });

  it('splices raw numbers into the JSON text as digits', () => {
    expect(toJson({ n: new Raw('9007199254740993'), m: [new Raw('1e400')] })).toBe('{"n":9007199254740993,"m":[1e400]}');
  });

  it('replaces any member, the root included, without touching the original', () => {
    const body = { a: [1, { b: 'x' }] };
    expect(memberPaths(body)).toEqual([[], ['a'], ['a', 0], ['a', 1], ['a', 1, 'b']]);
    expect(replaceAt(body, ['a', 1, 'b'], '\u0000')).toEqual({ a: [1, { b: '\u0000' }] });
    expect(replaceAt(body, [], null)).toBeNull();
    expect(body).toEqual({ a: [1, { b: 'x' }] });
  });
});
