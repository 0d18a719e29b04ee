import { ValidationError } from '../../../core';
import { VendorError } from '../../../plugins/flows';
import { loadOptions } from '../../../plugins/flows/testing-kit';
import { zohoCrmApp } from '../../../plugins/app-zoho-crm';
import { seedRecord } from './zoho-server';
import { requestsTo, useZoho } from './zoho-test-setup';

const setup = useZoho();

type Page = { options: Array<{ label: string; value: string }>; nextCursor?: string | null };
const pageOf = (result: unknown) => result as Page;

describe('the modules list', () => {
  it('lists the modules the API serves, labelled as in Zoho, with the connection’s token', async () => {
    const call = setup.call();
    const { result } = await loadOptions(zohoCrmApp, 'modules', {}, call);
    expect(pageOf(result).options).toEqual([
      { label: 'Leads', value: 'Leads' },
      { label: 'Contacts', value: 'Contacts' },
      { label: 'Deals', value: 'Deals' },
    ]);
    expect(pageOf(result).nextCursor).toBeNull();
    const [request] = requestsTo(setup.zoho, 'GET', '/crm/v2/settings/modules');
    expect(request.headers.authorization).toBe(`Zoho-oauthtoken ${call.connection.credentials.access_token}`);
  });

  it('keeps the modules whose name holds the search, whatever its case', async () => {
    const { result } = await loadOptions(zohoCrmApp, 'modules', {}, { ...setup.call(), search: 'CONT' });
    expect(pageOf(result).options.map((option) => option.value)).toEqual(['Contacts']);
  });
});

describe('the module_fields list', () => {
  it('lists the fields of params.module by API name, and filters them by the search', async () => {
    const all = await loadOptions(zohoCrmApp, 'module_fields', { module: 'Deals' }, setup.call());
    expect(pageOf(all.result).options).toEqual([
      { label: 'Deal Name (Deal_Name)', value: 'Deal_Name' },
      { label: 'Amount (Amount)', value: 'Amount' },
    ]);
    expect(requestsTo(setup.zoho, 'GET', '/crm/v2/settings/fields')[0].query.get('module')).toBe('Deals');

    const searched = await loadOptions(zohoCrmApp, 'module_fields', { module: 'Leads' }, { ...setup.call(), search: 'mail' });
    expect(pageOf(searched.result).options).toEqual([{ label: 'Email (Email)', value: 'Email' }]);
  });

  it('refuses a call without params.module, naming the param', async () => {
    const refused = await loadOptions(zohoCrmApp, 'module_fields', {}, setup.call()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(Object.keys((refused as ValidationError).errors)).toEqual(['params.module']);
  });
});

describe('the records list', () => {
  it('pages through a module with Zoho’s page tokens, each record once', async () => {
    for (let index = 0; index < 450; index++) seedRecord(setup.zoho.state, 'Leads', { Last_Name: `Lead ${index}`, Full_Name: `Lead Number ${index}` });
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const { result }: { result: unknown } = await loadOptions(zohoCrmApp, 'records', { module: 'Leads' }, { ...setup.call(), cursor });
      const page = pageOf(result);
      sizes.push(page.options.length);
      seen.push(...page.options.map((option) => option.value));
      cursor = page.nextCursor ?? null;
    } while (cursor !== null);

    expect(sizes).toEqual([200, 200, 50]);
    expect(new Set(seen).size).toBe(450);
    expect(seen.sort()).toEqual(setup.zoho.state.records.Leads.map((record) => record.id).sort());
    const requests = requestsTo(setup.zoho, 'GET', '/crm/v2/Leads');
    // The first page by number, the next ones by the token Zoho gave, never both.
    expect(requests.map((request) => [request.query.get('page'), request.query.has('page_token'), request.query.get('per_page')])).toEqual([
      ['1', false, '200'],
      [null, true, '200'],
      [null, true, '200'],
    ]);
  });

  it('labels records by their name field', async () => {
    const deal = seedRecord(setup.zoho.state, 'Deals', { Deal_Name: 'Big renewal', Amount: 1200 });
    const lead = seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Boyle', Full_Name: 'Patricia Boyle' });
    expect(pageOf((await loadOptions(zohoCrmApp, 'records', { module: 'Deals' }, setup.call())).result).options).toEqual([{ label: 'Big renewal', value: deal.id }]);
    expect(pageOf((await loadOptions(zohoCrmApp, 'records', { module: 'Leads' }, setup.call())).result).options).toEqual([{ label: 'Patricia Boyle', value: lead.id }]);
  });

  it('passes the search to Zoho’s search by word, and pages its results by number', async () => {
    for (let index = 0; index < 230; index++) seedRecord(setup.zoho.state, 'Contacts', { Last_Name: `Smith ${index}` });
    seedRecord(setup.zoho.state, 'Contacts', { Last_Name: 'Jones' });

    const first = pageOf((await loadOptions(zohoCrmApp, 'records', { module: 'Contacts' }, { ...setup.call(), search: 'smith' })).result);
    expect(first.options).toHaveLength(200);
    expect(first.nextCursor).toBe('p:2');
    const second = pageOf((await loadOptions(zohoCrmApp, 'records', { module: 'Contacts' }, { ...setup.call(), search: 'smith', cursor: first.nextCursor })).result);
    expect(second.options).toHaveLength(30);
    expect(second.nextCursor).toBeNull();
    expect([...first.options, ...second.options].every((option) => option.label.startsWith('Smith'))).toBe(true);

    const searches = requestsTo(setup.zoho, 'GET', '/crm/v2/Contacts/search');
    expect(searches.map((request) => [request.query.get('word'), request.query.get('page')])).toEqual([
      ['smith', '1'],
      ['smith', '2'],
    ]);
  });

  it('answers an empty page when Zoho has nothing (204)', async () => {
    const { result } = await loadOptions(zohoCrmApp, 'records', { module: 'Leads' }, { ...setup.call(), search: 'nobody' });
    expect(result).toEqual({ options: [], nextCursor: null });
  });

  it('refuses a cursor it never returned with a 422 at cursor', async () => {
    const refused = await loadOptions(zohoCrmApp, 'records', { module: 'Leads' }, { ...setup.call(), cursor: 'page-7' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).errors).toEqual({ cursor: ['is not a cursor this list returned'] });
  });

  it('turns a Zoho refusal into a VendorError the route can show', async () => {
    setup.zoho.state.failures.push({ status: 429, headers: { 'retry-after': '120' }, body: { code: 'TOO_MANY_REQUESTS', details: {}, message: 'too many requests', status: 'error' } });
    const refused = await loadOptions(zohoCrmApp, 'records', { module: 'Leads' }, setup.call()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(VendorError);
    expect((refused as VendorError).refused).toBe(true);
    expect((refused as VendorError).message).toBe('Zoho CRM is rate limiting the connection (429: too many requests); try again in 120 s');
  });
});
