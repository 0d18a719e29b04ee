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

describe('FlowCatalog: extensions of an app by another plugin', () => {
  it('adds the triggers, actions and option lists to the app', () => {
    const catalog = new FlowCatalog([app({ triggers: [trigger('tick')] })], [{ app: 'logic', by: 'clock', triggers: [trigger('tock')], actions: [action('wait')], options: [provider('units')] }]);
    expect(catalog.app('logic')!.triggers!.map((t) => t.key)).toEqual(['tick', 'tock']);
    expect(catalog.trigger('logic', 'tock')).toBeDefined();
    expect(catalog.action('logic', 'wait')).toBeDefined();
    expect(catalog.options('logic', 'units')).toBeDefined();
  });

  it('refuses an extension of an app nobody provides, and a key the app already has, naming the plugin', () => {
    const unknownApp = () => new FlowCatalog([app()], [{ app: 'crm', by: 'clock', triggers: [trigger('tock')] }]);
    expect(unknownApp).toThrow(BootError);
    expect(unknownApp).toThrow('plugin "clock" extends flow app "crm", which no installed plugin provides');
    expect(() => new FlowCatalog([app({ triggers: [trigger('tick')] })], [{ app: 'logic', by: 'clock', triggers: [trigger('tick')] }])).toThrow(
      'plugin "clock" adds trigger "tick" to flow app "logic", which already has one',
    );
    expect(() => new FlowCatalog([app({ options: [provider('units')] })], [{ app: 'logic', by: 'clock', options: [provider('units')] }])).toThrow(
      'plugin "clock" adds options kind "units" to flow app "logic", which already has one',
    );
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
