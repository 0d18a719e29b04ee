import path from 'node:path';
import request from 'supertest';
import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { RUNTIME_PLUGINS } from '../runtime/runtime-test-kit';
import { fakeDriverPlugin, sign, startFakeVendor, type FakeVendor } from './fake-provider';

const CHANNELS = path.resolve(__dirname, '../../../plugins/channels');
/** The fake provider's API key and webhook signing secret, as a connection's credentials carry them. */
export const FAKE_KEY = 'fake-api-key';
export const FAKE_SECRET = 'fake-signing-secret';

export interface FakeChannelKit {
  model: FakeLlmServer;
  vendor: FakeVendor;
  kit: TestKernel;
  /** The provider calling a channel's hook, signed with `secret` (the connection's unless told). */
  hook(channelUuid: string, body: unknown, secret?: string): request.Test;
  stop(): Promise<void>;
}

/** A kernel with the runtime, the channels plugin and the fake provider's driver, a scripted model, and the provider's server; `channels`: that plugin's config. */
export async function startFakeChannelKit(channels: Record<string, unknown>): Promise<FakeChannelKit> {
  const model = await startFakeLlmServer();
  const vendor = await startFakeVendor(FAKE_KEY);
  const kit = await startTestKernel({
    plugins: [...RUNTIME_PLUGINS, CHANNELS, fakeDriverPlugin(vendor.url)],
    config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0, channels },
  });
  return {
    model,
    vendor,
    kit,
    hook(channelUuid, body, secret = FAKE_SECRET) {
      const text = JSON.stringify(body);
      return request(kit.url).post(`/hooks/channels/${channelUuid}`).set('content-type', 'application/json').set('x-fake-signature', sign(secret, text)).send(text);
    },
    async stop() {
      await kit.stop();
      await model.close();
      await vendor.close();
    },
  };
}
