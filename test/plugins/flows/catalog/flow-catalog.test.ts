import { BootError, Type, configRef } from '../../../../core';
import { Auth, Options, type FlowAppDefinition } from '../../../../plugins/flows';
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
const connect = (overrides: Partial<FlowAppDefinition> = {}) => app({ uid: 'crm', name: 'CRM', category: 'connect', auth: Auth.custom(Type.Object({ key: Type.String() })), ...overrides });

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
    expect(refusal([app({ auth: Auth.custom(Type.Object({})) })]).message).toBe('flow app "logic" is builtin and takes no connection, so it cannot declare auth');
  });

  it('refuses a trigger, action or options kind declared twice, naming it', () => {
    expect(refusal([app({ triggers: [trigger('tick'), trigger('tick')] })]).message).toBe('flow app "logic" declares trigger "tick" version 1 twice');
    expect(refusal([app({ actions: [action('delay'), action('wait'), action('delay')] })]).message).toBe('flow app "logic" declares action "delay" version 1 twice');
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

describe('FlowCatalog boot checks: option links (x-options)', () => {
  const tables = { kind: 'tables', params: Type.Object({}), load: () => ({ options: [] }) };
  const columns = { kind: 'columns', params: Type.Object({ table_id: Type.String() }, { additionalProperties: false }), load: () => ({ options: [] }) };
  const linked = (input: ReturnType<typeof Type.Object>, where: 'actions' | 'triggers' = 'actions') =>
    app({ options: [tables, columns], [where]: [where === 'actions' ? { ...action('find'), input } : { ...trigger('changed'), input }] });

  it('accepts links to the app’s lists, nested ones included, with their {{config.x}} members', () => {
    const input = Type.Object({
      table_id: Options('tables'),
      filters: Type.Array(Type.Object({ column: Options('columns', { params: { table_id: '{{config.table_id}}' } }) })),
      columns: Type.Optional(Options('columns', { params: { table_id: '{{ config.table_id }}' } }, Type.Array(Type.String()))),
    });
    expect(() => new FlowCatalog([linked(input), linked(input, 'triggers')])).not.toThrow();
  });

  it('refuses a link to an option kind the app does not have, naming the app, the action and the field', () => {
    const input = Type.Object({ table_id: Options('tables'), filters: Type.Array(Type.Object({ column: Options('colums') })) });
    expect(refusal([linked(input)]).message).toBe('flow app "logic": action "find": field "filters[].column" names the option list "colums", which the app does not have (it has tables, columns)');
    expect(refusal([app({ actions: [{ ...action('find'), input: Type.Object({ t: Options('tables') }) }] })]).message).toContain('which the app does not have (it has none)');
  });

  it('refuses a {{config.x}} that is not a property of the same input, in a trigger too', () => {
    const input = Type.Object({ table: Options('tables'), column: Options('columns', { params: { table_id: '{{config.table_id}}' } }) });
    expect(refusal([linked(input, 'triggers')]).message).toBe('flow app "logic": trigger "changed": field "column" refers to {{config.table_id}}, which is not a property of the same input');
  });

  it('refuses a link the list cannot load (a required param missing, an unknown one) and a field that holds no option value', () => {
    expect(refusal([linked(Type.Object({ column: Options('columns') }))]).message).toBe(
      'flow app "logic": action "find": field "column" does not give the param "table_id" the option list "columns" requires',
    );
    expect(refusal([linked(Type.Object({ t: Type.String(), column: Options('columns', { params: { table_id: '{{config.t}}', sheet: 1 } }) }))]).message).toContain(
      'gives the param "sheet", which the option list "columns" does not take',
    );
    expect(refusal([linked(Type.Object({ count: Options('tables', {}, Type.Integer()) }))]).message).toBe(
      'flow app "logic": action "find": field "count" is linked to an option list but is neither a string nor an array of strings',
    );
  });

  it('checks the links of actions another plugin adds, against the merged app', () => {
    const added = { ...action('find'), input: Type.Object({ table_id: Options('tables') }) };
    expect(() => new FlowCatalog([app()], [{ app: 'logic', by: 'sheets', actions: [added] }])).toThrow('field "table_id" names the option list "tables"');
    expect(() => new FlowCatalog([app()], [{ app: 'logic', by: 'sheets', actions: [added], options: [tables] }])).not.toThrow();
  });
});

describe('FlowCatalog boot checks: auth', () => {
  const oauth2 = (overrides: Partial<Parameters<typeof Auth.oauth2>[0]> = {}) =>
    Auth.oauth2({ authorizeUrl: 'https://crm.example.com/authorize', tokenUrl: 'https://crm.example.com/token', scopes: ['contacts.read'], clientIdKey: 'crmClientId', clientSecretKey: 'crmClientSecret', ...overrides });

  // The OAuth client is read from the app's own config, which its plugin hands over as deps.config.
  const crmConfig = configRef({
    crmClientId: { doc: 'id', format: String, default: '' },
    crmClientSecret: { doc: 'secret', format: String, default: '' },
    crmAccountsUrl: { doc: 'accounts', format: String, default: 'https://accounts.crm.example.com' },
  });
  const oauthApp = (auth: ReturnType<typeof oauth2>) => connect({ auth, deps: { config: crmConfig } } as never);

  it('accepts every auth type', () => {
    for (const auth of [Auth.apiKey(), Auth.basic(), Auth.custom(Type.Object({ token: Type.String() }))]) expect(() => new FlowCatalog([connect({ auth })])).not.toThrow();
    expect(() => new FlowCatalog([oauthApp(oauth2())])).not.toThrow();
    expect(() => new FlowCatalog([oauthApp(oauth2({ tokenUrl: '{crmAccountsUrl}/oauth/token' }))])).not.toThrow();
  });

  it('refuses an oauth2 declaration no authorization could follow', () => {
    const url = 'must be an http(s) URL, or start with a {configKey} holding one';
    expect(refusal([oauthApp(oauth2({ tokenUrl: 'not a url' }))]).message).toBe(`flow app "crm": oauth2 tokenUrl ${url}`);
    expect(refusal([oauthApp(oauth2({ authorizeUrl: 'ftp://crm.example.com' }))]).message).toBe(`flow app "crm": oauth2 authorizeUrl ${url}`);
    expect(refusal([oauthApp(oauth2({ scopes: ['contacts.read', 'a b'] }))]).message).toBe('flow app "crm": oauth2 scope "a b" must be a non-empty string without spaces');
    expect(refusal([oauthApp(oauth2({ clientSecretKey: '' }))]).message).toBe("flow app \"crm\": oauth2 clientSecretKey must name a config key of the app's plugin");
  });

  it('refuses an oauth2 app that does not hand over the config its client and URLs are read from', () => {
    expect(refusal([connect({ auth: oauth2() })]).message).toContain("names its plugin's config as `deps.config`");
    expect(refusal([oauthApp(oauth2({ clientIdKey: 'otherId' }))]).message).toContain('"otherId", which the config in `deps.config` does not declare');
    expect(refusal([oauthApp(oauth2({ tokenUrl: '{crmTokenUrl}/token' }))]).message).toContain('"crmTokenUrl"');
  });

  it('refuses an auth that is not one of the four types, or whose schema is not an object', () => {
    expect(refusal([connect({ auth: { schema: Type.Object({}) } as never })]).message).toContain('auth type "undefined" must be one of api_key, basic, oauth2, custom');
    expect(refusal([connect({ auth: Auth.custom(Type.String()) })]).message).toBe('flow app "crm": the auth schema must be an object schema (the credentials a connection stores)');
  });

  it('refuses an action or option list typed for another app’s auth', () => {
    const theirs = Auth.apiKey();
    expect(refusal([connect({ actions: [{ ...action('sync'), auth: theirs }] })]).message).toBe('flow app "crm": action "sync" is typed for an auth that is not the app\'s own (pass the app\'s auth object)');
    expect(refusal([connect({ options: [{ ...provider('modules'), auth: theirs }] })]).message).toContain('options kind "modules" is typed for an auth');
    const own = Auth.apiKey();
    expect(() => new FlowCatalog([connect({ auth: own, actions: [{ ...action('sync'), auth: own }] })])).not.toThrow();
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
    connect({ version: '2.1.0', triggers: [trigger('record_created')], actions: [action('create_record')], options: [provider('modules')] }),
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
      { uid: 'crm', name: 'CRM', description: 'Conditions and delays', icon: 'https://example.com/logic.svg', category: 'connect', supports_trigger: true, supports_action: true, requires_connection: true, version: '2.1.0', triggers_count: 1, actions_count: 1 },
      { uid: 'inbox', name: 'Inbox', description: 'Conditions and delays', icon: 'https://example.com/logic.svg', category: 'builtin', supports_trigger: true, supports_action: false, requires_connection: false, version: null, triggers_count: 1, actions_count: 0 },
      { uid: 'logic', name: 'Logic', description: 'Conditions and delays', icon: 'https://example.com/logic.svg', category: 'builtin', supports_trigger: false, supports_action: true, requires_connection: false, version: null, triggers_count: 0, actions_count: 2 },
    ]);
  });
});
