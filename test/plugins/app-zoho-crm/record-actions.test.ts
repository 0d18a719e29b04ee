import { ValidationError } from '../../../core';
import { VendorError } from '../../../plugins/flows';
import { runAction } from '../../../plugins/flows/testing-kit';
import { zohoCrmApp } from '../../../plugins/app-zoho-crm';
import { seedRecord } from './zoho-server';
import { requestsTo, useZoho } from './zoho-test-setup';

const setup = useZoho();

type Json = Record<string, any>;
const run = async (key: string, input: Json, call = setup.call()) => (await runAction(zohoCrmApp, key, input, call)).output as Json;
/** What the promise rejected with; a test fails when it resolved. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    () => ({ resolved: true as const }),
    (error: unknown) => ({ resolved: false as const, error }),
  );
  if (outcome.resolved) throw new Error('expected the action to fail');
  return outcome.error;
}

describe('create_record', () => {
  it('creates the record in Zoho and answers its id, the fields sent and what Zoho reported', async () => {
    const output = await run('create_record', { module: 'Leads', fields: { Last_Name: 'Smith', Email: 'jane.smith@example.com', Company: 'Acme' } });

    const [stored] = setup.zoho.state.records.Leads;
    expect(stored).toMatchObject({ Last_Name: 'Smith', Email: 'jane.smith@example.com', Company: 'Acme' });
    expect(output).toEqual({
      id: stored.id,
      Last_Name: 'Smith',
      Email: 'jane.smith@example.com',
      Company: 'Acme',
      Created_Time: stored.Created_Time,
      Modified_Time: stored.Modified_Time,
      Created_By: stored.Created_By,
      Modified_By: stored.Modified_By,
    });
    expect(Object.keys(output)[0]).toBe('id');
    const [request] = requestsTo(setup.zoho, 'POST', '/crm/v2/Leads');
    expect(request.json()).toEqual({ data: [{ Last_Name: 'Smith', Email: 'jane.smith@example.com', Company: 'Acme' }] });
    // Zoho ignores Idempotency-Key; sending one would let egress repeat a POST that may have created a record.
    expect(request.headers['idempotency-key']).toBeUndefined();
  });

  it('fails with Zoho’s reason and the field when a mandatory field is missing', async () => {
    const error = await failure(run('create_record', { module: 'Leads', fields: { Email: 'no.name@example.com' } }));
    expect(error).toBeInstanceOf(VendorError);
    expect((error as VendorError).message).toBe('Zoho CRM refused to create a Leads record: required field not found (MANDATORY_NOT_FOUND, field Last_Name)');
    expect(setup.zoho.state.records.Leads).toHaveLength(0);
  });

  it('refuses input that is not valid with a 422 naming each member', async () => {
    const error = await failure(run('create_record', { module: '../settings', fields: {} }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(Object.keys((error as ValidationError).errors).sort()).toEqual(['config.fields', 'config.module']);
    expect(setup.zoho.requests).toHaveLength(0);
  });

  it('says when Zoho rate limits or fails, and never a 500 of its own', async () => {
    setup.zoho.state.failures.push({ status: 429, headers: { 'retry-after': '90' }, body: { code: 'TOO_MANY_REQUESTS', details: {}, message: 'too many requests', status: 'error' } });
    const limited = await failure(run('create_record', { module: 'Leads', fields: { Last_Name: 'Smith' } }));
    expect(limited).toBeInstanceOf(VendorError);
    expect((limited as VendorError).message).toBe('Zoho CRM is rate limiting the connection (429: too many requests); try again in 90 s');
    expect((limited as VendorError).retryAfterSeconds).toBe(90);

    setup.zoho.state.failures.push({ status: 500, body: { code: 'INTERNAL_ERROR', details: {}, message: 'Internal Server Error', status: 'error' } });
    const failed = await failure(run('create_record', { module: 'Leads', fields: { Last_Name: 'Smith' } }));
    expect(failed).toBeInstanceOf(VendorError);
    expect((failed as VendorError).message).toBe('Zoho CRM failed to create a Leads record (500: Internal Server Error)');
    expect((failed as VendorError).refused).toBe(false);
  });

  it('keeps the connection’s tokens out of its output and logs', async () => {
    const credentials = setup.tokens();
    const result = await runAction(zohoCrmApp, 'create_record', { module: 'Leads', fields: { Last_Name: 'Smith' } }, setup.call(credentials));
    const written = JSON.stringify([result.output, result.logs, setup.egressLogs]);
    expect(written).not.toContain(credentials.access_token);
    expect(written).not.toContain(credentials.refresh_token);
  });
});

describe('update_record', () => {
  it('changes the given fields of the record and answers its new modification time', async () => {
    const lead = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Smith', Company: 'Acme' });
    const output = await run('update_record', { module: 'Leads', record_id: lead.id, fields: { Company: 'Acme Europe' } });

    expect(setup.zoho.state.records.Leads[0]).toMatchObject({ Last_Name: 'Smith', Company: 'Acme Europe' });
    expect(output).toMatchObject({ id: lead.id, Company: 'Acme Europe', Modified_Time: setup.zoho.state.records.Leads[0].Modified_Time });
    expect(output.Modified_Time).not.toBe(lead.Created_Time);
    const [request] = requestsTo(setup.zoho, 'PUT', `/crm/v2/Leads/${lead.id}`);
    expect(request.json()).toEqual({ data: [{ Company: 'Acme Europe' }] });
  });

  it('fails with Zoho’s words for a record it does not have', async () => {
    const error = await failure(run('update_record', { module: 'Leads', record_id: '4876876000000999999', fields: { Company: 'Nobody' } }));
    expect((error as VendorError).message).toBe('Zoho CRM refused to update the Leads record 4876876000000999999: the related id given seems to be invalid (INVALID_DATA)');
  });

  it('refuses a record id that is not a Zoho id', async () => {
    const error = await failure(run('update_record', { module: 'Leads', record_id: '12/../34', fields: { Company: 'X' } }));
    expect(Object.keys((error as ValidationError).errors)).toEqual(['config.record_id']);
  });
});

describe('upsert_record', () => {
  it('inserts when no record has the match field’s value, then updates that record', async () => {
    const inserted = await run('upsert_record', { module: 'Contacts', match_field: 'Email', fields: { Last_Name: 'Boyle', Email: 'p.boyle@example.com' } });
    expect(inserted).toMatchObject({ action: 'insert', duplicate_field: null, Last_Name: 'Boyle' });

    const updated = await run('upsert_record', { module: 'Contacts', match_field: 'Email', fields: { Last_Name: 'Boyle-Smith', Email: 'P.Boyle@example.com' } });
    expect(updated).toMatchObject({ id: inserted.id, action: 'update', duplicate_field: 'Email', Last_Name: 'Boyle-Smith' });
    expect(setup.zoho.state.records.Contacts).toHaveLength(1);
    expect(setup.zoho.state.records.Contacts[0].Last_Name).toBe('Boyle-Smith');

    const requests = requestsTo(setup.zoho, 'POST', '/crm/v2/Contacts/upsert');
    expect(requests.map((request) => request.json())).toEqual([
      { data: [{ Last_Name: 'Boyle', Email: 'p.boyle@example.com' }], duplicate_check_fields: ['Email'] },
      { data: [{ Last_Name: 'Boyle-Smith', Email: 'P.Boyle@example.com' }], duplicate_check_fields: ['Email'] },
    ]);
  });

  it('refuses fields without the match field’s value, before calling Zoho', async () => {
    const error = await failure(run('upsert_record', { module: 'Contacts', match_field: 'Email', fields: { Last_Name: 'Boyle' } }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual({ 'config.fields': ['must give a value for the match field "Email"'] });
    expect(setup.zoho.requests).toHaveLength(0);
  });
});

describe('find_records', () => {
  it('finds what create_record created, by a field’s value', async () => {
    const created = await run('create_record', { module: 'Leads', fields: { Last_Name: 'Smith', Email: 'jane.smith@example.com' } });
    seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Jones', Email: 'bob.jones@example.com' });

    const found = await run('find_records', { module: 'Leads', field: 'Email', value: 'jane.smith@example.com' });
    expect(found).toMatchObject({ count: 1, more_records: false, records: [{ id: created.id, Last_Name: 'Smith', Email: 'jane.smith@example.com' }] });
    const [search] = requestsTo(setup.zoho, 'GET', '/crm/v2/Leads/search');
    expect(search.query.get('criteria')).toBe('(Email:equals:jane.smith@example.com)');
    expect(search.query.get('per_page')).toBe('20');
  });

  it('escapes parentheses and commas in the value, as Zoho’s criteria require', async () => {
    const acme = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Smith', Company: 'Acme (EU), Ltd' });
    const found = await run('find_records', { module: 'Leads', field: 'Company', operator: 'starts_with', value: 'Acme (EU),' });
    expect(found.records.map((record: Json) => record.id)).toEqual([acme.id]);
    expect(requestsTo(setup.zoho, 'GET', '/crm/v2/Leads/search')[0].query.get('criteria')).toBe('(Company:starts_with:Acme \\(EU\\)\\,)');
  });

  it('answers no records when Zoho finds none (204), and says when there are more than the limit', async () => {
    expect(await run('find_records', { module: 'Leads', field: 'Email', value: 'nobody@example.com' })).toEqual({ records: [], count: 0, more_records: false });

    for (let index = 0; index < 5; index++) seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Smith', Company: 'Acme' });
    const limited = await run('find_records', { module: 'Leads', field: 'Company', value: 'acme', limit: 3 });
    expect(limited).toMatchObject({ count: 3, more_records: true });
  });
});
