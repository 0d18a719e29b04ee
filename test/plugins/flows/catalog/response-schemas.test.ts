import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { startFakeCrm } from './fake-crm';
import { CATALOG_PLUGINS } from './fixture-apps';

/**
 * The OpenAPI document is generated from each route's response schema, so an answer
 * that does not match its schema makes the document lie: every catalog, connection and
 * options answer is checked against the schema its route declares.
 */
describe('catalog answers match their documented response schemas', () => {
  let kit: TestKernel;
  let crm: Awaited<ReturnType<typeof startFakeCrm>>;
  beforeAll(async () => {
    crm = await startFakeCrm(null);
    kit = await startTestKernel({ plugins: CATALOG_PLUGINS });
  });
  afterAll(async () => {
    await kit?.stop();
    await crm?.close();
  });

  it('every answer validates against the route’s `response` (additional members refused)', async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const check = (method: string, path: string, body: unknown) => {
      const route = kit.kernel.registry.list().find((candidate) => candidate.method === method && candidate.path === path);
      const validate = ajv.compile(route!.response!);
      expect({ route: `${method} ${path}`, errors: validate(body) ? null : validate.errors }).toEqual({ route: `${method} ${path}`, errors: null });
    };
    const connection = (await kit.api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_crm', label: 'CRM', credentials: { base_url: crm.url, api_key: 'refused-key' } }).expect(201)).body;
    // Revoked once the connection is made, so the options route answers with a state.
    crm.state.revoked.add('refused-key');
    check('POST', '/api/v1/flow/connections', connection);
    const uuid = connection.data.uuid;

    check('GET', '/api/v1/flow/apps', (await kit.api.get('/api/v1/flow/apps').expect(200)).body);
    check('GET', '/api/v1/flow/apps/supports/triggers', (await kit.api.get('/api/v1/flow/apps/supports/triggers').expect(200)).body);
    check('GET', '/api/v1/flow/apps/supports/actions', (await kit.api.get('/api/v1/flow/apps/supports/actions').expect(200)).body);
    for (const uid of ['fixture_crm', 'fixture_palette', 'fixture_chat', 'fixture_mail', 'fixture_inbox']) {
      check('GET', '/api/v1/flow/apps/:uid', (await kit.api.get(`/api/v1/flow/apps/${uid}`).expect(200)).body);
      check('GET', '/api/v1/flow/apps/:uid/triggers', (await kit.api.get(`/api/v1/flow/apps/${uid}/triggers`).expect(200)).body);
      check('GET', '/api/v1/flow/apps/:uid/actions', (await kit.api.get(`/api/v1/flow/apps/${uid}/actions`).expect(200)).body);
    }
    const options = '/api/v1/flow/apps/:uid/options';
    check('POST', options, (await kit.api.post('/api/v1/flow/apps/fixture_palette/options').send({ kind: 'colors' }).expect(200)).body);
    const state = await kit.api.post('/api/v1/flow/apps/fixture_crm/options').send({ kind: 'modules', connection_uuid: uuid }).expect(200);
    expect(state.body.state).toBe('unavailable');
    check('POST', options, state.body);

    check('GET', '/api/v1/flow/connections', (await kit.api.get('/api/v1/flow/connections').expect(200)).body);
    check('GET', '/api/v1/flow/connections/:uuid', (await kit.api.get(`/api/v1/flow/connections/${uuid}`).expect(200)).body);
    check('PATCH', '/api/v1/flow/connections/:uuid', (await kit.api.patch(`/api/v1/flow/connections/${uuid}`).send({ label: 'Renamed' }).expect(200)).body);
    check('DELETE', '/api/v1/flow/connections/:uuid', (await kit.api.delete(`/api/v1/flow/connections/${uuid}`).expect(200)).body);
  });
});
