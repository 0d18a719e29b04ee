import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import supertest from 'supertest';
import { ROOT_DIR } from '../../../core/kernel/kernel';
import { installedPluginDirs } from '../../../core/plugin/plugin-source';
import { createTestDatabase, startTestKernel, type TestKernel } from '../../../core/testing';

const run = promisify(execFile);
const EXAMPLES = path.join(ROOT_DIR, 'examples/plugins');

describe('OpenAPI document and docs page', () => {
  let kit: TestKernel;
  let document: any;

  beforeAll(async () => {
    // What `switchboard openapi` loads: every installed plugin, plus the examples.
    kit = await startTestKernel({ plugins: [...installedPluginDirs(ROOT_DIR, []), path.join(EXAMPLES, 'notes'), path.join(EXAMPLES, 'notes-word-count')] });
    // Public and on any host: neither a tenant host nor a token.
    const res = await supertest(kit.url).get('/api/v1/openapi.json').set('Host', 'docs.example.test');
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    document = res.body;
  });
  afterAll(() => kit?.stop());

  it('passes `redocly lint` with the repository config, offline', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(document, null, 2));
    try {
      const { code, stdout, stderr } = await run(
        path.join(ROOT_DIR, 'node_modules/.bin/redocly'),
        ['lint', '--config', path.join(ROOT_DIR, '.redocly.yaml'), '--format', 'json', file],
        {
          cwd: ROOT_DIR,
          // node_modules/.bin first: its `node` is the Node 24 the project runs on.
          env: { ...process.env, PATH: `${path.join(ROOT_DIR, 'node_modules/.bin')}:${process.env.PATH}`, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          maxBuffer: 16 * 1024 * 1024,
        },
      ).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error) => ({ code: error.code as number, stdout: error.stdout as string, stderr: error.stderr as string }),
      );
      const report = JSON.parse(stdout);
      // The config raises every warning to an error, so any problem shows here.
      expect({ code, problems: report.problems, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, problems: [], stderr: '' });
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('declares OpenAPI 3.1, version 1.0.0 and the tenant server', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'Switchboard API', version: '1.0.0' });
    const { baseDomain, port } = kit.kernel.config.core;
    expect(document.servers).toEqual([expect.objectContaining({ url: `http://{tenant}.${baseDomain}:${port}`, variables: { tenant: expect.objectContaining({ default: 'acme' }) } })]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['adminAuth', 'bearerAuth']);
  });

  it('describes every registered route with its method, `{param}` path, parameters and security', () => {
    const routes = kit.kernel.registry.list();
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /api/v1/notes', 'GET /api/v1/notes/:uuid', 'POST /admin/v1/tenants']));
    const operationIds = new Set<string>();
    for (const route of routes) {
      const openApiPath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const operation = document.paths[openApiPath]?.[route.method.toLowerCase()];
      expect({ route: `${route.method} ${route.path}`, documented: operation !== undefined }).toEqual({ route: `${route.method} ${route.path}`, documented: true });
      expect(operation.summary).toBe(route.summary);
      expect(operationIds.has(operation.operationId)).toBe(false);
      operationIds.add(operation.operationId);

      const pathParams = [...openApiPath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const documented = (operation.parameters ?? []).filter((p: any) => p.in === 'path');
      expect(documented.map((p: any) => p.name).sort()).toEqual(pathParams.sort());
      for (const param of documented) expect(param.required).toBe(true);

      const expected = { tenant: [{ bearerAuth: [route.scope] }], admin: [{ adminAuth: [] }], 'tenant-host': [], public: [] }[route.auth];
      expect(operation.security).toEqual(expected);
      expect(operation.responses[String(route.status)]).toBeDefined();
    }
    expect(document.paths['/api/v1/notes/{uuid}'].get.operationId).toBe('getApiV1NotesByUuid');
  });

  it('documents the inputs: query parameters, the request body and 415/422 on routes with a body', () => {
    const list = document.paths['/api/v1/notes'].get;
    expect(list.parameters).toEqual([
      expect.objectContaining({ name: 'page', in: 'query', required: false, schema: expect.objectContaining({ type: 'integer', default: 1 }) }),
      expect.objectContaining({ name: 'per_page', in: 'query', required: false, schema: expect.objectContaining({ maximum: 100 }) }),
    ]);
    expect(list.responses['422']).toEqual({ $ref: '#/components/responses/ValidationFailed' });

    for (const route of kit.kernel.registry.list().filter((r) => r.body)) {
      const operation = document.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')][route.method.toLowerCase()];
      // An upload route's body is its form fields (test/core/http/upload.test.ts).
      expect(operation.requestBody.content[route.upload ? 'multipart/form-data' : 'application/json'].schema).toBeDefined();
      expect(operation.responses['422']).toEqual({ $ref: '#/components/responses/ValidationFailed' });
      expect(operation.responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
    }

    const create = document.paths['/api/v1/notes'].post;
    expect(create.requestBody.required).toBe(true);
    // Read-only members are ignored on writes, so the body does not require them.
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['title']);
    expect(create.responses['201'].content['application/json'].schema.properties.data.required).toContain('uuid');
    expect(create.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' });
    expect(document.paths['/api/v1/notes/{uuid}'].get.parameters[0].schema).toEqual({ type: 'string', format: 'uuid', 'x-resource': 'notes.note' });
  });

  it('lists a schema named with Component() once and refers to it, keeping readOnly at the place of use', () => {
    const agentRead = document.paths['/api/v1/agents/{uuid}'].get.responses['200'].content['application/json'].schema;
    expect(agentRead.properties.data).toEqual({ $ref: '#/components/schemas/Agent' });
    const agent = document.components.schemas.Agent;
    expect(agent.properties.intents).toMatchObject({ readOnly: true, items: { $ref: '#/components/schemas/Intent' } });
    expect(agent.properties.settings.properties.memorize).toEqual({ $ref: '#/components/schemas/MemorizeSettings', readOnly: true });
    expect(document.components.schemas.MemorizeSettings.readOnly).toBeUndefined();
    expect(JSON.stringify(document)).not.toContain('x-component');
  });

  it('documents the error envelopes as shared components', () => {
    const read = document.paths['/api/v1/notes/{uuid}'].get;
    expect(Object.keys(read.responses).sort()).toEqual(['200', '400', '401', '403', '404', '413', '422', '429', '500', '503']);
    expect(document.components.responses.NotFound.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    expect(document.components.responses.ValidationFailed.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ValidationErrorEnvelope' });
    expect(document.components.responses.BadRequest.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    expect(document.components.responses.InternalError.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/InternalErrorEnvelope' });
    expect(document.components.schemas.ErrorEnvelope.required).toEqual(['success', 'message', 'data']);
    // Admin routes answer only with the admin token: 401, never 403.
    const admin = document.paths['/admin/v1/tenants'].post;
    expect(admin.responses['401']).toBeDefined();
    expect(admin.responses['403']).toBeUndefined();
    expect(admin.description).toContain('ADMIN_TOKEN');
  });

  it('includes the routes the app mounts itself, as public operations', () => {
    for (const p of ['/healthz', '/readyz', '/api/v1/openapi.json', '/docs']) {
      expect(document.paths[p].get).toMatchObject({ security: [], tags: ['system'] });
    }
    expect(document.paths['/readyz'].get.responses['503'].content['application/json'].schema.required).toEqual(['status', 'checks']);
    expect(document.paths['/docs'].get.responses['200'].content['text/html']).toBeDefined();
  });

  it('`switchboard openapi` prints the same document, and nothing but it, on stdout', async () => {
    const database = await createTestDatabase();
    try {
      const { stdout } = await run(process.execPath, [path.join(ROOT_DIR, "bin/switchboard.js"), "openapi"], {
        cwd: ROOT_DIR,
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: database.url,
          // With an external database the kernel insists on a shared secrets key.
          SECRETS_KEY: crypto.randomBytes(32).toString('base64'),
          PLUGINS_PATH: EXAMPLES,
          LOG_LEVEL: 'info',
        },
        maxBuffer: 16 * 1024 * 1024,
      });
      const printed = JSON.parse(stdout);
      expect(printed.paths).toEqual(document.paths);
      expect(printed.servers[0].url).toBe('http://{tenant}.localhost:8080');
    } finally {
      await database.drop();
    }
    // A child process boots every plugin and migrates a fresh database: over a minute beside other suites in CI.
  }, 150_000);

  it('serves /docs: HTML loading only local Swagger UI assets, which answer 200', async () => {
    const page = await supertest(kit.url).get('/docs').set('Host', 'docs.example.test');
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html');
    expect(page.text).toContain('/api/v1/openapi.json');
    expect(page.text).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);

    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js']));
    for (const asset of assets) {
      const res = await supertest(kit.url).get(asset).set('Host', 'docs.example.test');
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
    }

    // Only the page's own files: not the package's index.html, which fetches the Petstore online.
    const other = await supertest(kit.url).get('/docs/assets/index.html');
    expect(other.status).toBe(404);
  });
});
