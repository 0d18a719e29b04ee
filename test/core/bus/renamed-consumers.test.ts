import amqp from 'amqplib';
import { coreServices, definePlugin, defineRoute, Type } from '../../../core';
import { renamesOf } from '../../../core/bus/renamed-consumers';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { sleep, waitFor } from './bus-test-helpers';

const TOPIC = 'rename.ping';

/** A release of the probe: its consumer under `name` (with `formerly`), each handled `n` noted in `handled`. */
function probe(name: string, handled: number[], formerly?: string[]) {
  return definePlugin({
    id: 'rename-probe',
    deps: { http: coreServices.http, bus: coreServices.bus },
    init({ http, bus }) {
      bus.consume<{ n: number }>({ name, topics: [TOPIC], formerly }, async (message) => {
        handled.push(message.payload.n);
      });
      http.route(
        defineRoute({
          method: 'POST',
          path: '/api/v1/rename-probe/publish',
          summary: 'Publishes one ping per n',
          body: Type.Object({ ns: Type.Array(Type.Integer()) }),
          transactional: true,
          handler: async ({ body }) => ({ data: await bus.publishMany(TOPIC, body.ns.map((n) => ({ n }))) }),
        }),
      );
    },
  });
}

const sql = (kit: TestKernel, text: string, params: unknown[] = []) => kit.kernel.orm.em.fork().getConnection().execute(text, params);

describe('a consumer renamed between releases (ConsumerOptions.formerly)', () => {
  it('refuses a former name that a live consumer has, or that two consumers claim', () => {
    const consumer = (name: string, formerly: string[]) => ({ name, formerly }) as never;
    expect(() => renamesOf([consumer('p.a', ['p.b']), consumer('p.b', [])])).toThrow(/registered/);
    expect(() => renamesOf([consumer('p.a', ['p.old']), consumer('p.c', ['p.old'])])).toThrow(/both name "p.old"/);
    expect(renamesOf([consumer('p.a', ['p.old'])])).toEqual([{ former: 'p.old', consumer: 'p.a' }]);
  });

  const cases = (transport: Record<string, unknown>) => {
    it('handles what the former consumer left once: its retries and queued messages, not what it had handled', async () => {
      const before: number[] = [];
      const after: number[] = [];
      // The earlier release only publishes (serve): its consumer's messages wait (queue or outbox).
      const earlier = await startTestKernel({ plugins: [probe('old', before)], role: 'serve', config: { ...transport } });
      let later: TestKernel | undefined;
      try {
        const ids: string[] = (await earlier.api.post('/api/v1/rename-probe/publish').send({ ns: [1, 2, 3] }).expect(200)).body.data;
        if (transport.amqpUrl) await earlier.outboxDrained();
        // Message 2 was handled by the former consumer before the upgrade; message 3 (outbox transport) is its retry.
        await sql(earlier, `insert into bus_inbox (consumer, message_id, handled_at) values ('rename-probe.old', ?, now())`, [ids[1]]);
        if (!transport.amqpUrl) await sql(earlier, `update bus_outbox set consumer = 'rename-probe.old' where message_id = ?`, [ids[2]]);

        later = await startTestKernel({
          plugins: [probe('new', after, ['rename-probe.old'])],
          role: 'start',
          tenant: 'later',
          config: { ...transport, databaseUrl: earlier.kernel.config.core.databaseUrl, busNamespace: earlier.kernel.config.core.busNamespace },
        });
        await waitFor(async () => [...after], (handled) => handled.includes(1) && handled.includes(3), 20_000);
        await sleep(1000);
        expect(after.sort()).toEqual([1, 3]);
        expect(before).toEqual([]);
        expect(await sql(earlier, `select consumer from bus_inbox where consumer = 'rename-probe.old'`)).toEqual([]);
        if (transport.amqpUrl) {
          const connection = await amqp.connect(String(transport.amqpUrl));
          const channel = await connection.createChannel();
          channel.on('error', () => {});
          const queue = `${earlier.kernel.config.core.busNamespace}.rename-probe.old`;
          await expect(channel.checkQueue(queue)).rejects.toThrow(/NOT_FOUND/);
          await connection.close().catch(() => {});
        }
      } finally {
        await later?.stop();
        await earlier.stop();
      }
    });
  };

  describe('over the outbox', () => cases({}));
  (process.env.AMQP_URL ? describe : describe.skip)('over RabbitMQ', () => cases({ amqpUrl: process.env.AMQP_URL }));
});
