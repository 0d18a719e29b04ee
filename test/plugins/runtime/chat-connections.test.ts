import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent, RUNTIME_PLUGINS } from './runtime-test-kit';

/** How long the model takes: far longer than four turns need to reach it when none holds a connection. */
const MODEL_DELAY_MS = 5000;

let model: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  model = await startFakeLlmServer();
  // Two connections for four turns at once: a turn holding one while the model thinks would stall the third.
  kit = await startTestKernel({ plugins: RUNTIME_PLUGINS, config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0, databasePoolMax: 2 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});

describe('a turn waiting for the model', () => {
  it('holds no database connection nor transaction: four turns on a pool of two all reach the model at once', async () => {
    const agent = await activeAgent(kit.api);
    const before = model.requests.length;
    model.reply(...Array.from({ length: 4 }, (_, i) => ({ content: `Answer ${i}.`, delayMs: MODEL_DELAY_MS })));
    const turns = Array.from({ length: 4 }, (_, i) => kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: `Question ${i}` }));
    const settled = Promise.all(turns.map((turn) => turn.then((res) => res.status)));

    await waitFor(() => model.requests.length - before, (arrived) => arrived === 4, MODEL_DELAY_MS - 1000);
    // While all four wait, no connection of this database is inside a transaction.
    const idleInTransaction = await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`);
    expect(idleInTransaction[0].n).toBe(0);
    // And the API still answers from the same small pool.
    await kit.api.get(`/api/v1/agents/${agent}`).expect(200);
    expect(await settled).toEqual([200, 200, 200, 200]);
  });
});
