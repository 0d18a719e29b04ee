import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { coreServices, definePlugin, defineRoute, Type } from '../../../core';
import { startTestKernel } from '../../../core/testing';

/** A plugin reaches the outside only through the kernel's egress service. */
const caller = definePlugin({
  id: 'caller',
  deps: { http: coreServices.http, egress: coreServices.egress },
  init({ http, egress }) {
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/call-out',
        summary: 'Calls a URL',
        body: Type.Object({ url: Type.String() }, { additionalProperties: false }),
        handler: async ({ body }) => {
          try {
            const response = await egress.request(body.url);
            return { data: { status: response.status, body: response.text() } };
          } catch (error) {
            return { data: { refused: (error as Error).name } };
          }
        },
      }),
    );
  },
});

describe('the egress service in a kernel', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('pong'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ping`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('calls a peer the operator allowed (the test kit allows loopback)', async () => {
    const kit = await startTestKernel({ plugins: [caller] });
    try {
      await kit.api.post('/api/v1/call-out').send({ url }).expect(200, { data: { status: 200, body: 'pong' } });
    } finally {
      await kit.stop();
    }
  });

  it('refuses loopback under the default policy', async () => {
    const kit = await startTestKernel({ plugins: [caller], config: { egressAllowCidrs: [] } });
    try {
      await kit.api.post('/api/v1/call-out').send({ url }).expect(200, { data: { refused: 'EgressRefusedError' } });
    } finally {
      await kit.stop();
    }
  });
});
