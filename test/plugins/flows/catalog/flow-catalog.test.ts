import { BootError, Type } from '../../../../core';
import type { FlowAppDefinition } from '../../../../plugins/flows';
import { FlowCatalog } from '../../../../plugins/flows/app/flow-catalog';

const input = Type.Object({});
const trigger = (key: string) => ({ key, name: key, description: '', input, outputSample: {} });
const action = (key: string, branches?: string[]) => ({ key, name: key, description: '', input, outputSample: {}, branches, run: () => ({}) });
const provider = (kind: string) => ({ kind, params: Type.Object({}), load: () => ({ options: [] }) });

const app = (overrides: Partial<FlowAppDefinition> = {}): FlowAppDefinition => ({
  uid: 'logic',
  name: 'Logic',
  description: 'Conditions and delays',
  icon: 'https://example.com/logic.svg',
  category: 'builtin',
  ...overrides,
});
const connect = (overrides: Partial<FlowAppDefinition> = {}) => app({ uid: 'crm', name: 'CRM', category: 'connect', auth: { schema: Type.Object({ key: Type.String() }) }, ...overrides });

/** The BootError the catalog refuses the apps with. */
function refusal(apps: FlowAppDefinition[]): BootError {
  try {
    new FlowCatalog(apps);
  } catch (error) {
    expect(error).toBeInstanceOf(BootError);
    return error as BootError;
  }
  throw new Error('the catalog accepted the apps');
}

describe('FlowCatalog boot checks', () => {
  it('accepts well-formed apps of both categories', () => {
    expect(() => new FlowCatalog([app({ actions: [action('if_condition', ['true', 'false'])] }), connect()])).not.toThrow();
  });

  it.each(['', 'Logic', '1logic', 'my-app', 'app.name', `a${'b'.repeat(63)}`])('refuses the uid %j', (uid) => {
    expect(refusal([app({ uid })]).message).toContain(`flow app uid "${uid}" must be a-z, 0-9 and _`);
  });

  it('refuses a connect app without an auth schema, and a builtin app with one', () => {
    expect(refusal([connect({ auth: undefined })]).message).toBe('flow app "crm" is a connect app and needs an auth schema for its connections');
    expect(refusal([app({ auth: { schema: Type.Object({}) } })]).message).toBe('flow app "logic" is builtin and takes no connection, so it cannot declare auth');
  });

  it('refuses a trigger, action or options kind declared twice, naming it', () => {
    expect(refusal([app({ triggers: [trigger('tick'), trigger('tick')] })]).message).toBe('flow app "logic" declares trigger "tick" twice');
    expect(refusal([app({ actions: [action('delay'), action('wait'), action('delay')] })]).message).toBe('flow app "logic" declares action "delay" twice');
    expect(refusal([app({ options: [provider('operators'), provider('operators')] })]).message).toBe('flow app "logic" declares options kind "operators" twice');
    // One key may name a trigger and an action of the same app.
    expect(() => new FlowCatalog([app({ triggers: [trigger('tick')], actions: [action('tick')] })])).not.toThrow();
  });

  it('refuses keys that are not a-z0-9_, and a branching action without branches', () => {
    expect(refusal([app({ actions: [action('Send-Mail')] })]).message).toBe('flow app "logic": action key "Send-Mail" must be a-z, 0-9 and _, starting with a letter');
    expect(refusal([app({ options: [provider('delay units')] })]).message).toContain('options kind key "delay units"');
    expect(refusal([app({ actions: [action('if_condition', [])] })]).message).toBe('flow app "logic": action "if_condition" declares an empty branches list');
  });
});

describe('FlowCatalog lookups', () => {
  const catalog = new FlowCatalog([
    connect({ triggers: [trigger('record_created')], actions: [action('create_record')], options: [provider('modules')] }),
    app({ actions: [action('if_condition', ['true', 'false']), action('delay')] }),
    app({ uid: 'inbox', name: 'Inbox', triggers: [trigger('received')] }),
  ]);

  it('lists apps by name and finds triggers, actions, option lists and branches by key', () => {
    expect(catalog.list().map((a) => a.uid)).toEqual(['crm', 'inbox', 'logic']);
    expect(catalog.app('nope')).toBeUndefined();
    expect(catalog.trigger('crm', 'record_created')?.key).toBe('record_created');
    expect(catalog.trigger('crm', 'create_record')).toBeUndefined();
    expect(catalog.action('logic', 'delay')?.key).toBe('delay');
    expect(catalog.options('crm', 'modules')?.kind).toBe('modules');
    expect(catalog.options('logic', 'modules')).toBeUndefined();
    expect(catalog.branchesOf({ appUid: 'logic', actionKey: 'if_condition' })).toEqual(['true', 'false']);
    expect(catalog.branchesOf({ appUid: 'logic', actionKey: 'delay' })).toEqual([]);
    expect(catalog.branchesOf({ appUid: 'crm', actionKey: null })).toEqual([]);
  });

  it('derives the summary members from the app', () => {
    expect(catalog.list().map((a) => catalog.summary(a))).toEqual([
      { uid: 'crm', name: 'CRM', description: 'Conditions and delays', icon: 'https://example.com/logic.svg', category: 'connect', supports_trigger: true, supports_action: true, requires_connection: true, triggers_count: 1, actions_count: 1 },
      { uid: 'inbox', name: 'Inbox', description: 'Conditions and delays', icon: 'https://example.com/logic.svg', category: 'builtin', supports_trigger: true, supports_action: false, requires_connection: false, triggers_count: 1, actions_count: 0 },
      { uid: 'logic', name: 'Logic', description: 'Conditions and delays', icon: 'https://example.com/logic.svg', category: 'builtin', supports_trigger: false, supports_action: true, requires_connection: false, triggers_count: 0, actions_count: 2 },
    ]);
  });
});
