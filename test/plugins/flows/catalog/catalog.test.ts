import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { CATALOG_PLUGINS } from './fixture-apps';

type App = { uid: string };
const uids = (apps: App[]) => apps.map((app) => app.uid).filter((uid) => uid.startsWith('fixture_'));

describe('flow app catalog routes', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: CATALOG_PLUGINS });
  });
  afterAll(() => kit?.stop());

  it('GET /flow/apps lists the spec’s catalog items by name, with the derived members', async () => {
    const res = await kit.api.get('/api/v1/flow/apps').expect(200);
    const fixtures = res.body.data.filter((app: App) => app.uid.startsWith('fixture_'));
    expect(fixtures).toEqual([
      {
        uid: 'fixture_chat',
        name: 'Fixture Chat',
        description: 'Sends messages through a chat bot',
        icon: 'data:image/svg+xml;base64,PHN2Zy8+',
        category: 'connect',
        supports_trigger: false,
        supports_action: true,
        requires_connection: true,
        version: null,
        triggers_count: 0,
        actions_count: 1,
      },
      {
        uid: 'fixture_crm',
        name: 'Fixture CRM',
        description: 'Contacts and deals in a customer relationship manager',
        icon: 'https://crm.example.com/icon.png',
        category: 'connect',
        supports_trigger: true,
        supports_action: true,
        requires_connection: true,
        version: null,
        triggers_count: 1,
        actions_count: 2,
      },
      expect.objectContaining({ uid: 'fixture_inbox', category: 'builtin', supports_trigger: true, supports_action: false, requires_connection: false, triggers_count: 1, actions_count: 0 }),
      expect.objectContaining({ uid: 'fixture_mail', category: 'connect', supports_trigger: false, supports_action: true, requires_connection: true }),
      expect.objectContaining({ uid: 'fixture_palette', category: 'builtin', supports_trigger: false, supports_action: true, requires_connection: false, triggers_count: 0, actions_count: 1 }),
    ]);
    expect(Object.keys(res.body)).toEqual(['data']);
  });

  it('filters by `search` (name, description or uid, any case) and by `category`', async () => {
    const search = async (query: string) => uids((await kit.api.get(`/api/v1/flow/apps?${query}`).expect(200)).body.data);
    expect(await search('search=crm')).toEqual(['fixture_crm']);
    expect(await search('search=CHAT%20BOT')).toEqual(['fixture_chat']);
    expect(await search('search=fixture_pal')).toEqual(['fixture_palette']);
    expect(await search('category=builtin')).toEqual(['fixture_inbox', 'fixture_palette']);
    expect(await search('category=connect&search=messages')).toEqual(['fixture_chat']);
    expect(await search('category=connect')).toEqual(['fixture_chat', 'fixture_crm', 'fixture_mail']);
    expect(await search('search=nothing-like-this')).toEqual([]);
    const bad = await kit.api.get('/api/v1/flow/apps?category=cloud&colour=red').expect(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['category', 'colour']);
  });

  it('GET /flow/apps/supports/triggers and /supports/actions keep the apps with at least one, in the same item shape', async () => {
    const triggers = (await kit.api.get('/api/v1/flow/apps/supports/triggers').expect(200)).body.data;
    expect(uids(triggers)).toEqual(['fixture_crm', 'fixture_inbox']);
    const all = (await kit.api.get('/api/v1/flow/apps').expect(200)).body.data;
    expect(triggers).toEqual(all.filter((app: { supports_trigger: boolean }) => app.supports_trigger));

    const actions = (await kit.api.get('/api/v1/flow/apps/supports/actions?category=builtin').expect(200)).body.data;
    expect(uids(actions)).toEqual(['fixture_palette']);
    expect(uids((await kit.api.get('/api/v1/flow/apps/supports/actions').expect(200)).body.data)).toEqual(['fixture_chat', 'fixture_crm', 'fixture_mail', 'fixture_palette']);
  });

  it('GET /flow/apps/{uid} adds the triggers, actions, option lists and the auth schema a connection must match', async () => {
    const crm = (await kit.api.get('/api/v1/flow/apps/fixture_crm').expect(200)).body.data;
    expect(crm).toMatchObject({ uid: 'fixture_crm', category: 'connect', requires_connection: true, requires_agent: false, triggers_count: 1, actions_count: 2 });
    expect(crm.auth).toEqual({
      type: 'api_key',
      description: 'The API key from the CRM’s settings page',
      schema: {
        type: 'object',
        properties: { api_key: { type: 'string', minLength: 1, description: 'The API key' }, base_url: { type: 'string', format: 'uri' } },
        required: ['api_key', 'base_url'],
        additionalProperties: false,
        examples: [{ api_key: 'example-api-key', base_url: 'https://crm.example.com' }],
      },
      oauth2: null,
    });
    expect(crm.options).toEqual([
      { kind: 'modules', description: null, params_schema: { type: 'object', properties: {} }, searchable: false },
      {
        kind: 'records',
        description: null,
        params_schema: { type: 'object', properties: { module: { type: 'string', minLength: 1 } }, required: ['module'] },
        searchable: true,
      },
    ]);
    expect(crm.triggers.map((t: { key: string }) => t.key)).toEqual(['record_created']);
    expect(crm.actions.map((a: { key: string }) => a.key)).toEqual(['create_record', 'tag_records']);

    const palette = (await kit.api.get('/api/v1/flow/apps/fixture_palette').expect(200)).body.data;
    expect(palette.auth).toBeNull();
    expect(palette.options.map((o: { kind: string }) => o.kind)).toEqual(['colors', 'shades', 'swatches', 'exploding', 'malformed']);
    const chat = (await kit.api.get('/api/v1/flow/apps/fixture_chat').expect(200)).body.data;
    expect(chat.options).toEqual([]);
    expect(chat.auth).toMatchObject({ type: 'custom', description: null, oauth2: null, schema: { properties: { bot_token: { type: 'string', minLength: 1 } } } });
  });

  it('an oauth2 app shows its auth type, scopes, authorize URL and PKCE, never its client credentials nor where they are kept', async () => {
    const res = await kit.api.get('/api/v1/flow/apps/fixture_mail').expect(200);
    const { auth } = res.body.data;
    // The operator has not configured the fixture's OAuth client: the catalog says so, and shows no URL.
    expect(auth).toMatchObject({ type: 'oauth2', description: null, oauth2: { authorize_url: null, configured: false, scopes: ['mail.send', 'mail.read'], pkce: true } });
    expect(Object.keys(auth.schema.properties)).toEqual(['access_token', 'refresh_token', 'token_type', 'expires_at', 'scope']);
    expect(auth.schema.required).toEqual(['access_token']);
    for (const hidden of ['mailClientId', 'mailClientSecret', 'oauth/token']) expect(JSON.stringify(res.body)).not.toContain(hidden);
  });

  it('a field picked from an option list carries x-options, with the members its list depends on', async () => {
    const actions = (await kit.api.get('/api/v1/flow/apps/fixture_crm/actions').expect(200)).body.data;
    const tag = actions.find((a: { key: string }) => a.key === 'tag_records').input_schema;
    expect(tag.properties.module).toEqual({ type: 'string', description: 'The module', 'x-options': { kind: 'modules', params: {}, dependsOn: [] } });
    expect(tag.properties.record_ids).toEqual({
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      'x-options': { kind: 'records', params: { module: '{{config.module}}' }, dependsOn: ['module'] },
    });
    expect(tag.properties.tag).toEqual({ type: 'string' });
    const [trigger] = (await kit.api.get('/api/v1/flow/apps/fixture_crm/triggers').expect(200)).body.data;
    expect(trigger.input_schema.properties.module['x-options']).toEqual({ kind: 'modules', params: {}, dependsOn: [] });
  });

  it('GET /flow/apps/{uid}/triggers and /actions describe each with its input JSON Schema, output sample and branches', async () => {
    const triggers = (await kit.api.get('/api/v1/flow/apps/fixture_crm/triggers').expect(200)).body.data;
    expect(triggers).toEqual([
      {
        key: 'record_created',
        version: 1,
        versions: [1],
        name: 'Record created',
        description: 'A record was added to a module',
        input_schema: {
          type: 'object',
          properties: { module: { type: 'string', description: 'The module', 'x-options': { kind: 'modules', params: {}, dependsOn: [] } } },
          required: ['module'],
          additionalProperties: false,
        },
        output_sample: { id: 'r1', name: 'Ada Lovelace' },
      },
    ]);
    const actions = (await kit.api.get('/api/v1/flow/apps/fixture_palette/actions').expect(200)).body.data;
    expect(actions).toEqual([
      {
        key: 'branch_on_colour',
        version: 1,
        versions: [1],
        name: 'Branch on a colour',
        description: 'Runs the warm or the cold children',
        input_schema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'], additionalProperties: false },
        output_sample: { warm: true },
        branches: ['warm', 'cold'],
      },
    ]);
    // A plain action has no `branches` member at all.
    expect(Object.keys((await kit.api.get('/api/v1/flow/apps/fixture_crm/actions').expect(200)).body.data[0]).sort()).toEqual(['description', 'input_schema', 'key', 'name', 'output_sample', 'version', 'versions']);
    await kit.api.get('/api/v1/flow/apps/fixture_palette/triggers').expect(200, { data: [] });
  });

  it('an unknown app answers 404 on every catalog route', async () => {
    const notFound = { success: false, message: 'Flow app not found', data: [] };
    await kit.api.get('/api/v1/flow/apps/no_such_app').expect(404, notFound);
    await kit.api.get('/api/v1/flow/apps/no_such_app/triggers').expect(404, notFound);
    await kit.api.get('/api/v1/flow/apps/no_such_app/actions').expect(404, notFound);
    await kit.api.post('/api/v1/flow/apps/no_such_app/options').send({ kind: 'x' }).expect(404, notFound);
    // `supports` is a route of its own, never an app uid.
    await kit.api.get('/api/v1/flow/apps/supports').expect(404, notFound);
  });

  it('needs a token of the tenant, like every tenant route', async () => {
    await kit.client({ host: `acme.${kit.kernel.config.core.baseDomain}` }).get('/api/v1/flow/apps').expect(401);
  });
});
