import { startTestKernel, type ApiClient, type TestKernel } from '../../../../core/testing';
import { addStep, flowWithTrigger, readFlow } from './builder-helpers';
import { BUILDER_PLUGINS } from './fixture-apps';

/** Rule 4 across tenants: a step may only use a connection of its own tenant (and app), and only its label is ever shown. */

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: BUILDER_PLUGINS });
});
afterAll(() => kit?.stop());

const createConnection = async (api: ApiClient, label: string, apiKey: string): Promise<string> =>
  (await api.post('/api/v1/flow/connections').send({ app_uid: 'crm', label, credentials: { api_key: apiKey } }).expect(201)).body.data.uuid;
const contact = (connection: string) => ({ app_uid: 'crm', action_key: 'create_contact', app_connection_uuid: connection, config: { email: 'lead@example.com' } });

describe("another tenant's connection", () => {
  it('is refused on create and on PATCH exactly as a connection that does not exist (nothing tells it exists)', async () => {
    const other = await kit.createTenant();
    const theirs = await createConnection(other.api, 'Their CRM', 'their-secret-key');
    const { flow } = await flowWithTrigger(kit.api);

    const created = await kit.api.post(`/api/v1/flow/${flow.uuid}/steps`).send(contact(theirs)).expect(422);
    const missing = await kit.api.post(`/api/v1/flow/${flow.uuid}/steps`).send(contact('0190d5c2-0000-7000-8000-000000000000')).expect(422);
    expect(created.body).toEqual(missing.body);
    expect(created.body.errors).toEqual({ app_connection_uuid: ['is not a connection of app "crm" in this tenant'] });

    const step = await addStep(kit.api, flow.uuid, contact(await createConnection(kit.api, 'Our CRM', 'our-secret-key')));
    const patched = await kit.api.patch(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}`).send({ app_connection_uuid: theirs }).expect(422);
    expect(patched.body.errors).toEqual({ app_connection_uuid: ['is not a connection of app "crm" in this tenant'] });
    expect((await readFlow(kit.api, flow.uuid)).steps[1].app_connection.label).toBe('Our CRM');
  });
});

describe('a step with its own connection', () => {
  it('shows only {uuid, label}; its test runs the action with the connection opened for this tenant', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const connection = await createConnection(kit.api, 'Sales CRM', 'sales-secret-key');
    const step = await addStep(kit.api, flow.uuid, contact(connection));
    expect(step.app_connection).toEqual({ uuid: connection, label: 'Sales CRM' });

    const tested = (await kit.api.post(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}/test`).expect(200)).body.data;
    expect(tested.last_test).toMatchObject({ data: { id: 'c_1', email: 'lead@example.com', connection_label: 'Sales CRM' }, error: null });
    const everything = JSON.stringify([tested, await readFlow(kit.api, flow.uuid), (await kit.api.get('/api/v1/flow').expect(200)).body]);
    expect(everything).not.toContain('sales-secret-key');
    expect(everything).not.toContain('sb1:');
  });
});
