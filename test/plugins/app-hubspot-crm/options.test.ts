import { ValidationError } from '../../../core';
import { hubspotCrmApp } from '../../../plugins/app-hubspot-crm';
import { loadOptions } from '../../../plugins/flows/testing-kit';
import { property } from './hubspot-server';
import { useHubSpot } from './hubspot-setup';

const { world, options, received } = useHubSpot();

const load = (kind: string, params: Record<string, unknown> = {}, extra: { search?: string; cursor?: string | null } = {}) =>
  loadOptions(hubspotCrmApp, kind, params, { ...options(), ...extra }).then(({ result }) => result);

describe('modules', () => {
  it('lists the standard objects and the custom ones by their type id, searched by label', async () => {
    expect(await load('modules')).toEqual({
      options: [
        { label: 'Contacts', value: 'contacts' },
        { label: 'Companies', value: 'companies' },
        { label: 'Deals', value: 'deals' },
        { label: 'Tickets', value: 'tickets' },
        { label: 'Projects', value: '2-9001' },
      ],
      nextCursor: null,
    });
    expect(await load('modules', {}, { search: 'PROJ' })).toEqual({ options: [{ label: 'Projects', value: '2-9001' }], nextCursor: null });
    const [schemas] = received('GET /crm/v3/schemas');
    expect(schemas.headers.authorization).toMatch(/^Bearer access-/);
  });

  it('lists the standard objects only when the custom-object scope was not granted', async () => {
    world.hubspot.state.customScopeGranted = false;
    const result = await load('modules');
    expect('options' in result && result.options.map((option) => option.value)).toEqual(['contacts', 'companies', 'deals', 'tickets']);
  });
});

describe('module_fields', () => {
  it('lists the properties of the module, hidden ones left out, searched by label or name', async () => {
    const result = await load('module_fields', { module: 'contacts' });
    expect('options' in result && result.options).toContainEqual({ label: 'Email', value: 'email' });
    expect('options' in result && result.options.map((option) => option.value)).not.toContain('hs_internal_flag');
    expect(await load('module_fields', { module: 'contacts' }, { search: 'first' })).toEqual({ options: [{ label: 'First Name', value: 'firstname' }], nextCursor: null });
    expect(await load('module_fields', { module: 'contacts' }, { search: 'LASTNAME' })).toEqual({ options: [{ label: 'Last Name', value: 'lastname' }], nextCursor: null });
    expect(received('GET /crm/v3/properties/contacts')).toHaveLength(3);
  });

  it('pages a long property list with its own cursor and refuses a cursor it never returned', async () => {
    const saved = world.hubspot.state.properties.deals;
    world.hubspot.state.properties.deals = Array.from({ length: 230 }, (_, index) => property(`custom_${index}`, `Custom ${index}`));
    try {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await load('module_fields', { module: 'deals' }, { cursor });
        if (!('options' in page)) throw new Error('expected options');
        seen.push(...page.options.map((option) => option.value));
        cursor = page.nextCursor ?? null;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(new Set(seen).size).toBe(230);
      await expect(load('module_fields', { module: 'deals' }, { cursor: 'bm90LWEtY3Vyc29y' })).rejects.toMatchObject({ errors: { cursor: [expect.any(String)] } });
    } finally {
      world.hubspot.state.properties.deals = saved;
    }
  });

  it('is a 422 at params.module without a module', async () => {
    const problem = await load('module_fields', {}).catch((error: unknown) => error);
    expect(problem).toBeInstanceOf(ValidationError);
    expect((problem as ValidationError).errors).toHaveProperty(['params.module']);
  });
});

describe('records', () => {
  it('pages the records of the module with HubSpot’s cursor, labelled by name and email', async () => {
    for (let index = 0; index < 130; index++) world.hubspot.seed('contacts', { firstname: `Person${index}`, lastname: 'Test', email: `p${index}@example.com` });
    const first = await load('records', { module: 'contacts' });
    if (!('options' in first)) throw new Error('expected options');
    expect(first.options).toHaveLength(100);
    expect(first.options[0]).toEqual({ label: 'Person0 Test <p0@example.com>', value: expect.stringMatching(/^\d+$/) });
    expect(first.nextCursor).toBe('100');
    const second = await load('records', { module: 'contacts' }, { cursor: first.nextCursor });
    expect('options' in second && second.options).toHaveLength(30);
    expect('options' in second && second.nextCursor).toBeNull();
    const [, body] = received('POST /crm/v3/objects/contacts/search').map((request) => request.json<Record<string, unknown>>());
    expect(body).toEqual({ properties: ['firstname', 'lastname', 'email'], limit: 100, after: '100' });
  });

  it('passes the search on as HubSpot’s query', async () => {
    world.hubspot.seed('companies', { name: 'Acme Corp', domain: 'acme.example' });
    world.hubspot.seed('companies', { name: 'Globex', domain: 'globex.example' });
    expect(await load('records', { module: 'companies' }, { search: 'acme' })).toEqual({ options: [{ label: 'Acme Corp', value: expect.any(String) }], nextCursor: null });
    expect(received('POST /crm/v3/objects/companies/search')[0].json()).toMatchObject({ query: 'acme' });
  });

  it('labels custom records by the schema’s primary display property', async () => {
    const project = world.hubspot.seed('2-9001', { project_name: 'Apollo', project_code: 'AP-1' });
    expect(await load('records', { module: '2-9001' })).toEqual({ options: [{ label: 'Apollo', value: project.id }], nextCursor: null });
  });

  it('refuses a cursor HubSpot could not have returned', async () => {
    await expect(load('records', { module: 'contacts' }, { cursor: 'not a cursor!' })).rejects.toBeInstanceOf(ValidationError);
  });
});
