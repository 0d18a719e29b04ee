import { lookup, publicReferences, referencedSteps, renderConfig, storeReferences, holdsReference } from '../../../../plugins/flows/model/references';

const A = '0190d5c2-0000-7000-8000-00000000000a';
const B = '0190d5c2-0000-7000-8000-00000000000b';
const byPosition: Record<number, string> = { 1: A, 2: B };
const resolve = (n: number) => (byPosition[n] ? { uuid: byPosition[n] } : { error: `step ${n} does not exist` });

describe('step references', () => {
  it('stores {{stepN.path}} by step uuid, in any string at any depth, and renders them back by position', () => {
    const config = { url: 'https://x.test/{{step1.body.id}}', headers: [{ value: '{{ step2.token }}' }], n: 3, nested: { whole: '{{step2}}' } };
    const { config: stored, errors } = storeReferences(config, resolve);
    expect(errors).toEqual({});
    expect(stored).toEqual({ url: `https://x.test/{{#${A}.body.id}}`, headers: [{ value: `{{#${B}.token}}` }], n: 3, nested: { whole: `{{#${B}}}` } });
    expect(referencedSteps(stored)).toEqual(new Set([A, B]));
    // The same steps under new numbers: nothing stored changes, only how it reads.
    const positions: Record<string, number> = { [A]: 1, [B]: 5 };
    expect(publicReferences(stored, (uuid) => positions[uuid]).config).toEqual({
      url: 'https://x.test/{{step1.body.id}}',
      headers: [{ value: '{{step5.token}}' }],
      n: 3,
      nested: { whole: '{{step5}}' },
    });
  });

  it('reports every expression that is not a usable reference, by dotted path under config', () => {
    const { errors } = storeReferences({ a: '{{step9.x}}', b: ['ok', '{{ $json.x }}'], c: '{{step1.x}} {{process.env}}' }, resolve);
    expect(errors).toEqual({
      'config.a': ['step 9 does not exist'],
      'config.b.1': [expect.stringContaining('is not a step reference')],
      'config.c': [expect.stringContaining('"{{process.env}}" is not a step reference')],
    });
  });

  it('marks references to a deleted step instead of pointing them at another one', () => {
    const stored = { body: `{{#${A}.id}} and {{#${B}.name}}` };
    const { config, dangling } = publicReferences(stored, (uuid) => (uuid === A ? 1 : undefined));
    expect(config).toEqual({ body: '{{step1.id}} and {{deleted_step.name}}' });
    expect(dangling).toEqual(['body']);
    // Sent back as it reads, the dangling reference is refused until it is fixed.
    expect(storeReferences(config, resolve).errors).toEqual({ 'config.body': [expect.stringContaining('"{{deleted_step.name}}" is not a step reference')] });
  });

  it('renders a whole-string reference with its own type and interpolates references inside text', () => {
    const outputs: Record<string, unknown> = { [A]: { n: 42, list: [{ id: 'x' }], obj: { k: true } } };
    const outputOf = (uuid: string) => (uuid in outputs ? { found: true, value: outputs[uuid] } : { found: false, value: undefined });
    const rendered = renderConfig(
      { n: `{{#${A}.n}}`, first: `{{#${A}.list[0].id}}`, dotted: `{{#${A}.list.0.id}}`, obj: `{{#${A}.obj}}`, text: `n={{#${A}.n}} obj={{#${A}.obj}}`, missing: `{{#${B}.x}}`, inText: `[{{#${B}.x}}]` },
      outputOf,
    );
    expect(rendered).toEqual({ n: 42, first: 'x', dotted: 'x', obj: { k: true }, text: 'n=42 obj={"k":true}', missing: null, inText: '[]' });
  });

  it('looks paths up in own members only: no prototype walking', () => {
    expect(lookup({ a: 1 }, '.constructor')).toEqual({ found: false, value: undefined });
    expect(lookup({ a: 1 }, '.__proto__')).toEqual({ found: false, value: undefined });
    expect(lookup({ a: { b: [5] } }, '.a.b[0]')).toEqual({ found: true, value: 5 });
    expect(lookup('text', '.length')).toEqual({ found: false, value: undefined });
  });

  it('tells a value holding a reference from a plain one', () => {
    expect(holdsReference(`x {{#${A}.y}}`)).toBe(true);
    expect(holdsReference('{{step1.y}}')).toBe(false);
    expect(holdsReference(7)).toBe(false);
  });
});
