import type { MikroORM } from '@mikro-orm/postgresql';
import { Type } from '@sinclair/typebox';
import { runInContext, type TenantRef } from '../../../core/context/request-context';
import type { Egress } from '../../../core/egress';
import { createLlmService, LlmResponseError, LlmUnavailableError, LlmUsage, type KernelLlmService, type LlmConfig, type LlmProvider } from '../../../core/llm';
import { Tenant } from '../../../core/tenancy/tenant.entity';
import { startFakeLlmServer, type FakeLlmServer } from '../../../core/testing';
import { captureLogger, loopbackEgress, startUsageDatabase, testProvider } from './llm-test-helpers';

const API_KEY = 'sk-service-test-key-987654';
const { logger, lines } = captureLogger();
let database: Awaited<ReturnType<typeof startUsageDatabase>>;
let orm: MikroORM;
let egress: Egress;
let server: FakeLlmServer;
let tenant: TenantRef;

beforeAll(async () => {
  database = await startUsageDatabase(logger);
  orm = database.orm;
  egress = loopbackEgress(logger);
  server = await startFakeLlmServer();
  const em = orm.em.fork();
  const row = em.create(Tenant, { slug: 'acme', name: 'Acme' });
  await em.flush();
  tenant = { uuid: row.uuid, slug: row.slug, name: row.name };
});

afterAll(async () => {
  await server?.close();
  await egress?.close();
  await database?.close();
});

beforeEach(async () => {
  expect(server.remaining).toBe(0);
  server.requests.length = 0;
  lines.length = 0;
  await orm.em.fork().nativeDelete(LlmUsage, {});
});

const services: KernelLlmService[] = [];

// Usage rows are written in the background: a test's rows must land before the next test starts counting.
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.flushUsage()));
});

function serviceWith(config: Partial<LlmConfig> = {}) {
  return tracked(createLlmService({ provider: testProvider(egress, logger, { llmBaseUrl: server.url, llmApiKey: API_KEY, ...config }), orm, logger }));
}

function tracked(service: KernelLlmService): KernelLlmService {
  services.push(service);
  return service;
}

async function usageRows(): Promise<LlmUsage[]> {
  return orm.em.fork().find(LlmUsage, {}, { orderBy: { createdAt: 'asc' } });
}

const verdictSchema = Type.Object({ score: Type.Integer({ minimum: 0, maximum: 10 }), reason: Type.String() }, { additionalProperties: false });

describe('llm service: structured output', () => {
  it('asks for json_schema output and returns the parsed, validated answer', async () => {
    server.reply({ json: { score: 7, reason: 'clear and polite' } });
    const llm = serviceWith();
    const verdict = await llm.json({ messages: [{ role: 'user', content: 'Rate this answer' }], schema: verdictSchema, schemaName: 'verdict', strict: true });
    // TypeBox types the result: `verdict.score` is a number here.
    const score: number = verdict.score;
    expect(score).toBe(7);
    expect(verdict).toEqual({ score: 7, reason: 'clear and polite' });
    expect(server.requests[0].body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'verdict', schema: JSON.parse(JSON.stringify(verdictSchema)), strict: true },
    });
  });

  it('jsonResult returns the call’s usage, model and raw text beside the value', async () => {
    server.reply({ json: { score: 3, reason: 'slow' }, usage: { promptTokens: 120, completionTokens: 8 }, model: 'judge-1' });
    const llm = serviceWith();
    const { value, result } = await llm.jsonResult({ messages: [{ role: 'user', content: 'Rate this answer' }], schema: verdictSchema });
    const score: number = value.score;
    expect(score).toBe(3);
    expect(result.usage).toEqual({ promptTokens: 120, completionTokens: 8, totalTokens: 128 });
    expect(result.model).toBe('judge-1');
    expect(JSON.parse(result.content!)).toEqual({ score: 3, reason: 'slow' });
  });

  it('accepts a plain JSON Schema and an answer wrapped in a Markdown fence', async () => {
    server.reply({ content: '```json\n{"tags": ["billing", "refund"]}\n```' });
    const llm = serviceWith();
    const schema = { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } }, required: ['tags'] };
    const answer = await llm.json<{ tags: string[] }>({ messages: [{ role: 'user', content: 'Tag this' }], schema });
    expect(answer.tags).toEqual(['billing', 'refund']);
    expect(server.requests[0].body.response_format.json_schema.name).toBe('response');
    expect(server.requests[0].body.response_format.json_schema).not.toHaveProperty('strict');
  });

  it('throws LlmResponseError for an answer that does not conform, or is not JSON, naming the problem but not the answer', async () => {
    server.reply({ json: { score: 42, reason: 'Jane Roe was rude' } }, { content: '{"score": 3, "reason": "cut', finishReason: 'length' }, { content: null, toolCalls: [{ name: 'x', arguments: {} }] });
    const llm = serviceWith();
    const request = { messages: [{ role: 'user' as const, content: 'Rate this' }], schema: verdictSchema };

    const outOfRange = await llm.json(request).catch((caught) => caught);
    expect(outOfRange).toBeInstanceOf(LlmResponseError);
    expect(outOfRange.message).toBe("the model's answer does not match the schema: answer/score must be <= 10");
    expect(outOfRange.content).toBe('{"score":42,"reason":"Jane Roe was rude"}');
    // Not enumerable: a logger serialising the error does not write the answer.
    expect(JSON.stringify({ ...outOfRange })).not.toContain('Jane Roe');

    await expect(llm.json(request)).rejects.toThrow("the model's answer is not valid JSON (the answer was cut off at the token limit)");
    await expect(llm.json(request)).rejects.toThrow('the model gave no JSON answer (finish reason: tool_calls)');
  });

  it('accepts schemas built per call, even two with one $id', async () => {
    server.reply({ json: { n: 1 } }, { json: { n: 'two' } });
    const llm = serviceWith();
    const schemaOf = (type: string) => ({ $id: 'https://example.com/answer', type: 'object', properties: { n: { type } }, required: ['n'] });
    expect(await llm.json({ messages: [{ role: 'user', content: 'x' }], schema: schemaOf('integer') })).toEqual({ n: 1 });
    expect(await llm.json({ messages: [{ role: 'user', content: 'x' }], schema: schemaOf('string') })).toEqual({ n: 'two' });
  });

  it('refuses an invalid schema before calling the model', async () => {
    const llm = serviceWith();
    await expect(llm.json({ messages: [{ role: 'user', content: 'x' }], schema: { type: 'no-such-type' } })).rejects.toThrow(/schema is invalid/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('llm service: usage records', () => {
  it("records each call with the tenant, provider, model, purpose, tokens and duration", async () => {
    server.reply({ content: 'hi', model: 'test-model-2024-07-18', usage: { promptTokens: 120, completionTokens: 30 } });
    const llm = serviceWith();
    await runInContext({ tenant }, () => llm.chat({ messages: [{ role: 'user', content: 'hello' }], purpose: 'evaluation.analyzer' }));
    await llm.flushUsage();

    const [row, ...others] = await usageRows();
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      tenantUuid: tenant.uuid,
      provider: 'openai-compatible',
      model: 'test-model-2024-07-18',
      purpose: 'evaluation.analyzer',
      promptTokens: 120,
      completionTokens: 30,
      totalTokens: 150,
      status: 'ok',
    });
    expect(row.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('records the agent a call was for, and null when the caller did not say', async () => {
    const agentUuid = '0b6f4a53-8d7e-4c1a-9a51-3f0c2b7e9d10';
    server.reply({ content: 'one' });
    server.reply({ content: 'two' });
    const llm = serviceWith();
    await runInContext({ tenant }, () => llm.chat({ messages: [{ role: 'user', content: 'a' }], purpose: 'runtime.turn', agentUuid }));
    await runInContext({ tenant }, () => llm.chat({ messages: [{ role: 'user', content: 'b' }], purpose: 'other' }));
    await llm.flushUsage();

    const rows = await usageRows();
    expect(rows.map((row) => [row.purpose, row.agentUuid])).toEqual([
      ['runtime.turn', agentUuid],
      ['other', null],
    ]);
    expect(await orm.em.fork().count(LlmUsage, { agentUuid })).toBe(1);
  });

  it('records failed calls as errors, with the model asked for and no tokens; outside a tenant the tenant is null', async () => {
    server.reply({ status: 500, error: 'down' }, { status: 500, error: 'down' });
    const llm = serviceWith({ llmMaxRetries: 1 });
    await expect(llm.chat({ messages: [{ role: 'user', content: 'hello' }], purpose: 'ops.digest' })).rejects.toBeInstanceOf(LlmUnavailableError);
    await llm.flushUsage();

    expect(await usageRows()).toEqual([
      expect.objectContaining({ tenantUuid: null, model: 'test-model', purpose: 'ops.digest', promptTokens: null, completionTokens: null, totalTokens: null, status: 'error' }),
    ]);
  });

  it('records the calls of a contributed provider under its id, errors it throws included', async () => {
    const scripted: LlmProvider = {
      id: 'vendor-sdk',
      chat: async (request) => {
        if (request.purpose === 'fail') throw new Error('vendor exploded');
        return { content: 'vendor says hi', toolCalls: [], finishReason: 'stop', model: 'vendor-model', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } };
      },
    };
    const llm = tracked(createLlmService({ provider: scripted, orm, logger }));
    await runInContext({ tenant }, async () => {
      await llm.chat({ messages: [{ role: 'user', content: 'x' }] });
      await expect(llm.chat({ messages: [{ role: 'user', content: 'x' }], model: 'vendor-big', purpose: 'fail' })).rejects.toThrow('vendor exploded');
    });
    await llm.flushUsage();
    // Two rows written within the same millisecond may come back in either order.
    const rows = (await usageRows()).sort((a, b) => a.status.localeCompare(b.status));
    expect(rows).toEqual([
      expect.objectContaining({ provider: 'vendor-sdk', model: 'vendor-big', totalTokens: null, status: 'error', purpose: 'fail', tenantUuid: tenant.uuid }),
      expect.objectContaining({ provider: 'vendor-sdk', model: 'vendor-model', totalTokens: 3, status: 'ok', purpose: null, tenantUuid: tenant.uuid }),
    ]);
  });

  it("keeps the usage of a call made in a transaction that rolls back (the row is committed on its own)", async () => {
    server.reply({ content: 'hi', usage: { promptTokens: 4, completionTokens: 4 } });
    const llm = serviceWith();
    const rollback = new Error('the request failed after the model call');
    let seenDuringTransaction: number | undefined;
    await expect(
      runInContext({ tenant }, () =>
        orm.em.fork().transactional(async () => {
          await llm.chat({ messages: [{ role: 'user', content: 'x' }], purpose: 'in.transaction' });
          await llm.flushUsage();
          // Visible from another connection while the caller's transaction is still open: it was committed separately.
          seenDuringTransaction = await orm.em.fork().count(LlmUsage, { purpose: 'in.transaction' });
          throw rollback;
        }),
      ),
    ).rejects.toBe(rollback);
    expect(seenDuringTransaction).toBe(1);
    expect(await usageRows()).toEqual([expect.objectContaining({ purpose: 'in.transaction', tenantUuid: tenant.uuid, totalTokens: 8 })]);
  });

  it('logs a usage row it cannot write and still returns the answer', async () => {
    server.reply({ content: 'still answered' });
    const llm = serviceWith();
    const ghost: TenantRef = { uuid: '0190a000-0000-7000-8000-000000000000', slug: 'ghost', name: 'Ghost' };
    const result = await runInContext({ tenant: ghost }, () => llm.chat({ messages: [{ role: 'user', content: 'x' }] }));
    await llm.flushUsage();
    expect(result.content).toBe('still answered');
    expect(await usageRows()).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'could not record LLM usage', provider: 'openai-compatible', model: 'test-model' }));
  });

  it('writes the rows of concurrent calls together, and a row the database refuses loses only itself', async () => {
    for (let i = 0; i < 12; i++) server.reply({ content: `answer ${i}`, usage: { promptTokens: i, completionTokens: 1 } });
    const llm = serviceWith();
    const ghost: TenantRef = { uuid: '0190a000-0000-7000-8000-000000000001', slug: 'ghost', name: 'Ghost' };
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => runInContext({ tenant: i === 5 ? ghost : tenant }, () => llm.chat({ messages: [{ role: 'user', content: `q${i}` }], purpose: `batch.${i}` }))),
    );
    await llm.flushUsage();
    const rows = await usageRows();
    expect(rows.map((row) => row.purpose).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `batch.${i}`).filter((purpose) => purpose !== 'batch.5').sort());
    expect(rows.every((row) => row.tenantUuid === tenant.uuid)).toBe(true);
    expect(lines.filter((line) => line.message === 'could not record LLM usage')).toHaveLength(1);
  });
});

describe('llm service: logs', () => {
  it('never writes the API key, the prompts or the answers, whatever happens', async () => {
    server.reply(
      { status: 429, error: 'slow down', headers: { 'retry-after': '0' } },
      { content: 'Dear Jane Roe, your IBAN DE89370400440532013000 is noted' },
      { status: 400, error: 'bad request' },
      { json: { score: 99, reason: 'Jane Roe is angry' } },
    );
    const llm = serviceWith();
    const prompt = 'My name is Jane Roe and my IBAN is DE89370400440532013000';
    await runInContext({ tenant }, async () => {
      await llm.chat({ messages: [{ role: 'user', content: prompt }] });
      await expect(llm.chat({ messages: [{ role: 'user', content: prompt }] })).rejects.toThrow('HTTP 400');
      await expect(llm.json({ messages: [{ role: 'user', content: prompt }], schema: verdictSchema })).rejects.toBeInstanceOf(LlmResponseError);
    });
    await llm.flushUsage();

    expect(lines.some((line) => line.message === 'llm call' && line.level === 'debug')).toBe(true);
    expect(lines.some((line) => line.message === 'llm call failed' && line.level === 'warn')).toBe(true);
    const written = JSON.stringify(lines);
    expect(written).not.toContain(API_KEY);
    expect(written).not.toContain('Jane Roe');
    expect(written).not.toContain('DE89370400440532013000');
  });
});
