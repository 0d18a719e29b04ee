import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestKernel } from '../../../core/testing';
import { effects, sleep, waitFor } from './bus-test-helpers';

const PROBE = path.resolve(__dirname, '../../fixtures/plugins/bus-probe');
const rabbitmqctl = ['/usr/sbin/rabbitmqctl', '/usr/bin/rabbitmqctl'].find((file) => fs.existsSync(file));

/** Restarts the machine's RabbitMQ: needs a broker on this machine (CI: AMQP_URL at 127.0.0.1, rabbitmqctl installed). */
export const canRestartBroker = Boolean(process.env.AMQP_URL && rabbitmqctl && /@(127\.0\.0\.1|localhost)[:/]/.test(process.env.AMQP_URL));

export function brokerRestartCases(): void {
  it('restarting the broker during 2,000 publishes loses none and duplicates no effect', async () => {
    const kit = await startTestKernel({ plugins: [PROBE], config: { amqpUrl: process.env.AMQP_URL, busPollIntervalMs: 500 } });
    try {
      const published: string[] = [];
      for (let batch = 0; batch < 20; batch++) {
        const payloads = Array.from({ length: 100 }, (_, n) => ({ n: batch * 100 + n }));
        const { body } = await kit.api.post('/api/v1/probe/publish').send({ topic: 'probe.bulk', payloads }).expect(200);
        published.push(...body.data);
        if (batch === 5) execFileSync(rabbitmqctl!, ['stop_app'], { stdio: 'ignore', timeout: 60_000 });
        if (batch === 12) execFileSync(rabbitmqctl!, ['start_app'], { stdio: 'ignore', timeout: 60_000 });
      }
      await waitFor(() => effects(kit), (rows) => rows.length >= 2000, 90_000);
      await sleep(1000);
      const rows = await effects(kit);
      expect(rows).toHaveLength(2000);
      expect(new Set(rows.map((r) => r.message_id))).toEqual(new Set(published));
      await kit.outboxDrained();
      await kit.client({}).get('/readyz').expect(200, { status: 'ready', checks: { database: 'up', broker: 'up' } });
    } finally {
      if (rabbitmqctl) execFileSync(rabbitmqctl, ['start_app'], { stdio: 'ignore', timeout: 60_000 });
      await kit.stop();
    }
  }, 150_000);

  it('/readyz reports the broker while it is down', async () => {
    const kit = await startTestKernel({ plugins: [PROBE], config: { amqpUrl: process.env.AMQP_URL } });
    try {
      await kit.client({}).get('/readyz').expect(200);
      execFileSync(rabbitmqctl!, ['stop_app'], { stdio: 'ignore', timeout: 60_000 });
      await waitFor(async () => (await kit.client({}).get('/readyz')).body, (body) => body.checks?.broker === 'down', 20_000);
      const res = await kit.client({}).get('/readyz').expect(503);
      expect(res.body).toEqual({ status: 'unavailable', checks: { database: 'up', broker: 'down' } });
    } finally {
      execFileSync(rabbitmqctl!, ['start_app'], { stdio: 'ignore', timeout: 60_000 });
      await waitFor(async () => (await kit.client({}).get('/readyz')).status, (status) => status === 200, 30_000).catch(() => {});
      await kit.stop();
    }
  }, 90_000);
}
