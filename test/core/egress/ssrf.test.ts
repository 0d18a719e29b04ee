import { createEgress, EgressRefusedError, type Egress, type HostResolver } from '../../../core/egress';
import { captureLogger, egressConfig, startPeer, type Peer } from './peer-server';

/**
 * The default policy (no EGRESS_ALLOW_CIDRS) against the usual SSRF tricks. A peer
 * listens on 127.0.0.1 and every loopback spelling below points at its port: had a
 * check let one through, the peer would count a connection.
 */
describe('egress: SSRF protection with the default policy', () => {
  let target: Peer;
  let egress: Egress;
  let lines: Array<Record<string, unknown>>;

  beforeAll(async () => {
    target = await startPeer((_request, res) => res.end('reached'));
    const captured = captureLogger();
    lines = captured.lines;
    egress = createEgress(egressConfig({ egressAllowCidrs: [], egressTimeoutMs: 3000 }), captured.logger, { retryBackoffMs: 5 });
  });
  afterAll(async () => {
    await egress?.close();
    await target?.close();
  });

  const refusal = async (url: string) => {
    const connectionsBefore = target.connections;
    const error = await egress.request(url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect(target.connections).toBe(connectionsBefore);
    return (error as EgressRefusedError).reason;
  };

  it.each([
    ['http://127.0.0.1:PORT/', /127\.0\.0\.1 is loopback/],
    ['http://localhost:PORT/', /localhost resolves to .* is loopback/],
    ['http://2130706433:PORT/', /127\.0\.0\.1 is loopback/],
    ['http://0177.0.0.1:PORT/', /127\.0\.0\.1 is loopback/],
    ['http://0x7f.0.0.1:PORT/', /127\.0\.0\.1 is loopback/],
    ['http://127.1:PORT/', /127\.0\.0\.1 is loopback/],
    ['http://[::1]:PORT/', /::1 is loopback/],
    ['http://[::ffff:127.0.0.1]:PORT/', /127\.0\.0\.1 is loopback/],
    ['http://[::ffff:7f00:1]:PORT/', /127\.0\.0\.1 is loopback/],
    ['http://0.0.0.0:PORT/', /0\.0\.0\.0 is "this network"/],
    ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a cloud metadata address/],
    ['http://10.0.0.1/', /10\.0\.0\.1 is private/],
    ['http://192.168.1.1/', /192\.168\.1\.1 is private/],
    ['http://172.16.0.1/', /172\.16\.0\.1 is private/],
    ['http://100.64.0.1/', /100\.64\.0\.1 is carrier-grade NAT/],
    ['http://[fd00::1]/', /fd00::1 is unique-local/],
    ['http://[fe80::1]/', /fe80::1 is link-local/],
    ['file:///etc/passwd', /scheme file: is not allowed/],
    ['gopher://127.0.0.1:PORT/', /scheme gopher: is not allowed/],
  ])('refuses %s', async (url, reason) => {
    const started = Date.now();
    expect(await refusal(url.replace('PORT', String(target.port)))).toMatch(reason);
    // Refused before connecting: no connect or total timeout was waited for.
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('logs a refusal as a warning with its reason, without the path', async () => {
    await refusal(`http://127.0.0.1:${target.port}/private-path`);
    const line = lines.find((entry) => entry.message === 'egress call refused');
    expect(line).toMatchObject({ level: 'warn', host: `127.0.0.1:${target.port}`, reason: expect.stringMatching(/loopback/) });
    expect(JSON.stringify(lines)).not.toContain('private-path');
  });
});

describe('egress: SSRF protection across redirects and DNS', () => {
  const cleanup: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(cleanup.splice(0).map((item) => item.close()));
  });
  const track = <T extends { close(): Promise<void> }>(item: T): T => {
    cleanup.push(item);
    return item;
  };

  it('a redirect from an allowed peer to loopback is refused before connecting', async () => {
    const loopback = track(await startPeer((_request, res) => res.end('reached'), '127.0.0.1'));
    const targets = ['http://127.0.0.1:PORT/', 'http://2130706433:PORT/', 'http://[::ffff:127.0.0.1]:PORT/', 'http://localhost:PORT/'];
    const allowed = track(
      await startPeer((request, res) => {
        res.writeHead(302, { location: targets[Number(request.path.slice(1))].replace('PORT', String(loopback.port)) });
        res.end();
      }, '127.0.0.2'),
    );
    // Only the first hop's exact address is allowed; the rest of 127/8 keeps the default refusal.
    const egress = track(createEgress(egressConfig({ egressAllowCidrs: ['127.0.0.2/32'] }), captureLogger().logger));
    for (let index = 0; index < targets.length; index++) {
      const error = await egress.request(`${allowed.url}/${index}`).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EgressRefusedError);
      expect((error as EgressRefusedError).reason).toMatch(/loopback/);
    }
    expect(allowed.requests).toHaveLength(targets.length);
    expect(loopback.connections).toBe(0);
  });

  it('the address is checked at every connect, so DNS rebinding cannot slip through', async () => {
    const allowed = track(
      await startPeer((_request, res) => {
        // A fresh connection per request, so the second request resolves the name again.
        res.writeHead(200, { connection: 'close' });
        res.end('allowed peer');
      }, '127.0.0.2'),
    );
    const loopback = track(await startPeer((_request, res) => res.end('reached'), '127.0.0.1', allowed.port));
    const answers = ['127.0.0.2', '127.0.0.1'];
    const resolve: HostResolver = async () => [{ address: answers.shift() ?? '127.0.0.1', family: 4 }];
    const egress = track(createEgress(egressConfig({ egressAllowCidrs: ['127.0.0.2/32'] }), captureLogger().logger, { resolve }));

    const first = await egress.request(`http://rebinding.example:${allowed.port}/`);
    expect(first.text()).toBe('allowed peer');
    const error = await egress.request(`http://rebinding.example:${allowed.port}/`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect((error as EgressRefusedError).reason).toBe('rebinding.example resolves to 127.0.0.1: 127.0.0.1 is loopback (127.0.0.0/8)');
    expect(loopback.connections).toBe(0);
  });

  it('a name with any refused answer is refused, and a mapped or NAT64 answer is judged by its IPv4', async () => {
    const resolved: Record<string, Array<{ address: string; family: number }>> = {
      'mixed.example': [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
      'mapped.example': [{ address: '::ffff:169.254.169.254', family: 6 }],
      'nat64.example': [{ address: '64:ff9b::7f00:1', family: 6 }],
    };
    const egress = track(createEgress(egressConfig({ egressAllowCidrs: [] }), captureLogger().logger, { resolve: async (name) => resolved[name] }));
    await expect(egress.request('http://mixed.example/')).rejects.toMatchObject({ reason: expect.stringMatching(/10\.0\.0\.5 is private/) });
    await expect(egress.request('http://mapped.example/')).rejects.toMatchObject({ reason: expect.stringMatching(/metadata/) });
    await expect(egress.request('http://nat64.example/')).rejects.toMatchObject({ reason: expect.stringMatching(/NAT64 address of 127\.0\.0\.1/) });
  });

  it('the same names go through once their range is allowed', async () => {
    const loopback = track(await startPeer((_request, res) => res.end('reached'), '127.0.0.1'));
    const egress = track(createEgress(egressConfig({ egressAllowCidrs: ['127.0.0.0/8'] }), captureLogger().logger));
    for (const host of ['127.0.0.1', '2130706433', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]']) {
      expect((await egress.request(`http://${host}:${loopback.port}/`)).text()).toBe('reached');
    }
  });
});
