import { createEgress, type Egress } from '../../../../core/egress';
import { captureLogger } from '../../../../core/testing';
import { ChannelSendError, type ChannelConnectionValue, type DriverContext } from '../../../../plugins/channels';

/**
 * What the driver tests share (not a test file itself): an egress client that may reach
 * the loopback fakes, the context a driver's `send` and `typing` are given, and the
 * ChannelSendError a failing send throws.
 */

/** Loopback is refused by default: allow it, as the test kernel does. No egress retries: the drivers ask for none. */
export function loopbackEgress(): Egress {
  return createEgress(
    { egressAllowCidrs: ['127.0.0.0/8'], egressConnectTimeoutMs: 2000, egressTimeoutMs: 10000, egressMaxResponseBytes: 1024 * 1024, egressMaxRetries: 2 },
    captureLogger().logger,
    { retryBackoffMs: 1 },
  );
}

export function connectionOf<C>(provider: string, credentials: C): ChannelConnectionValue<C> {
  return { uuid: '5f0c7c1e-8a7b-4f64-9d0e-3c2b1a000001', provider, label: `${provider} test`, credentials };
}

export function driverContext<C>(provider: string, credentials: C, egress: Egress, apiBaseUrl: string): DriverContext<C> {
  return {
    connection: connectionOf(provider, credentials),
    egress,
    apiBaseUrl,
    hookUrl: 'https://switchboard.example/hooks/channels/00000000-0000-4000-8000-000000000000',
    logger: captureLogger().logger,
  };
}

/** The ChannelSendError a send failed with (the test fails when it did not fail, or failed otherwise). */
export async function sendFailure(promise: Promise<unknown>): Promise<ChannelSendError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ChannelSendError);
  return error as ChannelSendError;
}
