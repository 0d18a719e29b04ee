import convict from 'convict';
import { egressConfigSchema } from '../../../core/egress';

const load = (env: Record<string, string>) => {
  const config = convict(egressConfigSchema, { env, args: [] });
  config.validate({ allowed: 'strict' });
  return config.getProperties();
};

describe('egress config', () => {
  it('defaults: nothing private allowed, 5 s to connect, 30 s in all, 10 MiB, 2 retries', () => {
    expect(load({})).toEqual({
      egressAllowCidrs: [],
      egressConnectTimeoutMs: 5000,
      egressTimeoutMs: 30000,
      egressMaxResponseBytes: 10 * 1024 * 1024,
      egressMaxRetries: 2,
    });
  });

  it('reads every setting from its environment variable', () => {
    expect(
      load({
        EGRESS_ALLOW_CIDRS: '10.20.0.0/16, fd00::/8,,192.168.1.5',
        EGRESS_CONNECT_TIMEOUT_MS: '1000',
        EGRESS_TIMEOUT_MS: '2000',
        EGRESS_MAX_RESPONSE_BYTES: '4096',
        EGRESS_MAX_RETRIES: '0',
      }),
    ).toEqual({
      egressAllowCidrs: ['10.20.0.0/16', 'fd00::/8', '192.168.1.5'],
      egressConnectTimeoutMs: 1000,
      egressTimeoutMs: 2000,
      egressMaxResponseBytes: 4096,
      egressMaxRetries: 0,
    });
  });

  it('an invalid CIDR fails validation naming the key', () => {
    expect(() => load({ EGRESS_ALLOW_CIDRS: '10.0.0.0/8,intranet' })).toThrow(/egressAllowCidrs.*"intranet" is not a CIDR/);
    expect(() => load({ EGRESS_ALLOW_CIDRS: '10.0.0.0/40' })).toThrow(/egressAllowCidrs/);
  });
});
