import path from 'node:path';
import amqp from 'amqplib';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { topology } from '../../../core/bus/transports/amqp-transport';
import { effects, waitFor } from './bus-test-helpers';

const PROBE = path.resolve(__dirname, '../../fixtures/plugins/bus-probe');

// RabbitMQ only: the publishing channel is the broker transport's.
(process.env.AMQP_URL ? describe : describe.skip)('the broker transport’s publishing channel', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [PROBE], config: { amqpUrl: process.env.AMQP_URL, busPollIntervalMs: 200 } });
  });
  afterAll(() => kit?.stop());

  it('closed by a channel error (its exchange deleted under it), is opened again and nothing published meanwhile is lost', async () => {
    const first = (await kit.api.post('/api/v1/probe/publish').send({ topic: 'probe.one', payloads: [{ n: 1 }] }).expect(200)).body.data as string[];
    await waitFor(() => effects(kit), (rows) => rows.some((row) => row.message_id === first[0]));

    // Someone deletes the exchange: the next publish is a 404 that closes the channel, not the connection.
    const connection = await amqp.connect(String(process.env.AMQP_URL));
    try {
      const channel = await connection.createChannel();
      await channel.deleteExchange(topology(kit.kernel.config.core.busNamespace).exchange);
    } finally {
      await connection.close();
    }
    const later = (await kit.api.post('/api/v1/probe/publish').send({ topic: 'probe.two', payloads: [{ n: 2 }, { n: 3 }] }).expect(200)).body.data as string[];

    const rows = await waitFor(() => effects(kit), (all) => later.every((id) => all.some((row) => row.message_id === id && row.consumer === 'alpha')), 30_000);
    expect(rows.filter((row) => row.consumer === 'alpha' && later.includes(row.message_id))).toHaveLength(2);
    expect(kit.logs.some((line) => line.message === 'broker publishing channel closed; reconnecting')).toBe(true);
    await kit.outboxDrained();
  }, 60_000);
});
