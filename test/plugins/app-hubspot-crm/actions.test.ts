import { ValidationError } from '../../../core';
import { hubspotCrmApp } from '../../../plugins/app-hubspot-crm';
import { VendorError } from '../../../plugins/flows';
import { runAction } from '../../../plugins/flows/testing-kit';
import { useHubSpot } from './hubspot-setup';

const { world, options, received } = useHubSpot();

const run = (key: string, input: Record<string, unknown>) => runAction(hubspotCrmApp, key, input, options());

describe('create_record', () => {
  it('creates the record with its values as HubSpot’s text, with the step’s Idempotency-Key, and outputs it', async () => {
    const { output, idempotencyKey } = await run('create_record', { module: 'contacts', properties: { email: 'ada@example.com', firstname: 'Ada', phone: 4412, lifecyclestage: null } });
    const [request] = received('POST /crm/v3/objects/contacts');
    expect(request.json()).toEqual({ properties: { email: 'ada@example.com', firstname: 'Ada', phone: '4412', lifecyclestage: '' } });
    expect(request.headers['idempotency-key']).toBe(idempotencyKey);
    const stored = world.hubspot.state.records.contacts[0];
    expect(output).toEqual({ ...stored.properties, id: stored.id, createdAt: stored.createdAt, updatedAt: stored.updatedAt, archived: false });
    expect(output).toMatchObject({ email: 'ada@example.com', firstname: 'Ada' });
  });

  it('fails the step with HubSpot’s own words when it refuses the values', async () => {
    const failure = await run('create_record', { module: 'contacts', properties: { shoe_size: '42' } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VendorError);
    expect((failure as VendorError).message).toBe('HubSpot refused to create a record of contacts (400: Property values were not valid: Property "shoe_size" does not exist)');
  });

  it('is a 422 naming each bad member of the input', async () => {
    const failure = await run('create_record', { module: 'contacts/../x', properties: {} }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidationError);
    expect(Object.keys((failure as ValidationError).errors).sort()).toEqual(['config.module', 'config.properties']);
  });
});

describe('update_record', () => {
  it('changes the given properties of the record by id and keeps the others', async () => {
    const contact = world.hubspot.seed('contacts', { email: 'ada@example.com', firstname: 'Ada', lastname: 'Byron' });
    const { output } = await run('update_record', { module: 'contacts', record_id: contact.id, properties: { lastname: 'King' } });
    expect(output).toMatchObject({ id: contact.id, firstname: 'Ada', lastname: 'King' });
    expect(received(`PATCH /crm/v3/objects/contacts/${contact.id}`)[0].json()).toEqual({ properties: { lastname: 'King' } });
  });

  it('finds the record by a unique property with idProperty', async () => {
    const contact = world.hubspot.seed('contacts', { email: 'grace@example.com', firstname: 'Grace' });
    const { output } = await run('update_record', { module: 'contacts', record_id: 'grace@example.com', id_property: 'email', properties: { lastname: 'Hopper' } });
    expect(output).toMatchObject({ id: contact.id, lastname: 'Hopper' });
    const [request] = received('PATCH /crm/v3/objects/contacts/grace%40example.com');
    expect(request.query.get('idProperty')).toBe('email');
  });

  it('fails the step when HubSpot finds no such record', async () => {
    await expect(run('update_record', { module: 'deals', record_id: '999999', properties: { dealname: 'x' } })).rejects.toThrow('HubSpot found nothing to update the record 999999 of deals (404: resource not found)');
  });
});

describe('upsert_record', () => {
  it('creates the record when no record has the value, then updates that one', async () => {
    const input = { module: '2-9001', id_property: 'project_code', id_value: 'AP-1', properties: { project_name: 'Apollo' } };
    const first = await run('upsert_record', input);
    expect(first.output).toMatchObject({ project_code: 'AP-1', project_name: 'Apollo', created: true });
    const second = await run('upsert_record', { ...input, properties: { project_name: 'Apollo 11' } });
    expect(second.output).toMatchObject({ id: (first.output as { id: string }).id, project_name: 'Apollo 11', created: false });
    expect(world.hubspot.state.records['2-9001']).toHaveLength(1);
    expect(received('POST /crm/v3/objects/2-9001/batch/upsert')[1].json()).toEqual({ inputs: [{ idProperty: 'project_code', id: 'AP-1', properties: { project_name: 'Apollo 11' } }] });
  });

  it('says so when the property does not hold unique values', async () => {
    await expect(run('upsert_record', { module: 'contacts', id_property: 'firstname', id_value: 'Ada', properties: { lastname: 'x' } })).rejects.toThrow(
      /HubSpot refused to upsert a record of contacts \(400: firstname is not a unique identifier property\)/,
    );
  });
});

describe('find_records', () => {
  it('finds records by property = value, in pages of at most 200, up to the limit, with the total', async () => {
    for (let index = 0; index < 500; index++) world.hubspot.seed('contacts', { email: `p${index}@example.com`, lifecyclestage: index % 2 ? 'lead' : 'customer' });
    const { output } = await run('find_records', { module: 'contacts', property: 'lifecyclestage', value: 'LEAD', properties: ['email', 'lifecyclestage'], limit: 120 });
    const { records, total } = output as { records: Array<Record<string, unknown>>; total: number };
    expect(total).toBe(250);
    expect(records).toHaveLength(120);
    expect(records.every((record) => record.lifecyclestage === 'lead')).toBe(true);
    expect(records[0]).toEqual({ email: 'p1@example.com', lifecyclestage: 'lead', id: expect.any(String), createdAt: expect.any(String), updatedAt: expect.any(String), archived: false });

    const many = await run('find_records', { module: 'contacts', property: 'lifecyclestage', value: 'customer', limit: 1000 });
    expect(many.output).toMatchObject({ total: 250, records: expect.arrayContaining([expect.objectContaining({ email: 'p498@example.com' })]) });
    expect((many.output as { records: unknown[] }).records).toHaveLength(250);
    const bodies = received('POST /crm/v3/objects/contacts/search').map((request) => request.json<Record<string, unknown>>());
    expect(bodies[0]).toEqual({
      filterGroups: [{ filters: [{ propertyName: 'lifecyclestage', operator: 'EQ', value: 'LEAD' }] }],
      sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
      properties: ['email', 'lifecyclestage'],
      limit: 120,
    });
    expect(bodies.slice(1).map((body) => [body.limit, body.after])).toEqual([[200, undefined], [200, '200']]);
  });

  it('needs a value unless the operator tests presence', async () => {
    await expect(run('find_records', { module: 'deals', property: 'amount' })).rejects.toMatchObject({ errors: { 'config.value': [expect.any(String)] } });
    world.hubspot.seed('deals', { dealname: 'Big', amount: '100' });
    world.hubspot.seed('deals', { dealname: 'None' });
    const { output } = await run('find_records', { module: 'deals', property: 'amount', operator: 'HAS_PROPERTY' });
    expect(output).toMatchObject({ total: 1, records: [{ dealname: 'Big' }] });
  });
});
