import path from 'node:path';
import { Type, coreServices, defineRoute, definePlugin } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { EVALUATION_TOPICS } from '../../../plugins/evaluation';
import { addWebhook, createAgent, startReceiver, waitFor, type Receiver } from './webhook-test-kit';

/**
 * The evaluation plugin's `session_evaluated` event reaches webhooks through its catalog
 * `source` (topic `session.evaluated`, the payload's agent_uuid). The message is
 * published by a probe route with the documented payload: running the evaluator needs a
 * model, and what is under test here is the declaration and the delivery.
 */
const PLUGINS = ['agents', 'conversations', 'evaluation', 'agent-webhooks'].map((id) => path.resolve(__dirname, '../../../plugins', id));

const announcer = definePlugin({
  id: 'evaluated-probe',
  dependsOn: ['evaluation'],
  deps: { http: coreServices.http, bus: coreServices.bus },
  init({ http, bus }) {
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/evaluated-probe',
        summary: 'Publish session.evaluated',
        body: Type.Object({ agent_uuid: Type.String() }, { additionalProperties: true }),
        response: Type.Object({ ok: Type.Boolean() }),
        handler: async ({ body }) => {
          await bus.publish(EVALUATION_TOPICS.evaluated, body);
          return { ok: true };
        },
      }),
    );
  },
});

let kit: TestKernel;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  kit = await startTestKernel({ plugins: [...PLUGINS, announcer] });
});
afterAll(async () => {
  await kit?.stop();
  await receiver?.close();
});

it('delivers session_evaluated to the evaluated agent’s subscribed webhooks only', async () => {
  const agent = await createAgent(kit.api);
  const other = await createAgent(kit.api);
  await addWebhook(kit.api, agent, { url: `${receiver.url}/evaluated`, events: ['session_evaluated'] });
  await addWebhook(kit.api, other, { url: `${receiver.url}/other`, events: ['session_evaluated'] });
  const payload = { evaluation_uuid: crypto.randomUUID(), session_uuid: crypto.randomUUID(), agent_uuid: agent, status: 'completed', success: true, summary: 'ok', labels: {} };
  await kit.api.post('/api/v1/evaluated-probe').send(payload).expect(200);
  const [request] = await waitFor(() => receiver.of('/evaluated'), (r) => r.length >= 1);
  expect(JSON.parse(request.body)).toMatchObject({ type: 'session_evaluated', data: payload });
  await kit.outboxDrained();
  expect(receiver.of('/other')).toHaveLength(0);
});
