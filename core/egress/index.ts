import type { Logger } from '../logging/logger';
import packageJson from '../../package.json';
import { createAddressPolicy } from './address-policy';
import type { EgressConfig } from './egress-config';
import { EgressClient, type Egress } from './egress-client';
import type { HostResolver } from './guarded-dispatcher';

export { egressConfigSchema, type EgressConfig } from './egress-config';
export type { Egress, EgressRequestOptions, EgressResponse, QueryValue } from './egress-client';
export {
  EgressError,
  EgressRefusedError,
  EgressTimeoutError,
  EgressResponseTooLargeError,
  EgressTooManyRedirectsError,
  EgressNetworkError,
} from './egress-errors';
export { createAddressPolicy, parseCidr, type AddressPolicy, type AddressVerdict } from './address-policy';
export type { HostResolver, ResolvedAddress } from './guarded-dispatcher';

/** Knobs that are not operator settings. */
export interface EgressOptions {
  /** First retry's backoff in ms (later ones double it); 100 by default. */
  retryBackoffMs?: number;
  /** Default `Switchboard/<version>`. */
  userAgent?: string;
  /** Replaces the system resolver (tests use it to play a DNS that answers private addresses). */
  resolve?: HostResolver;
  /**
   * Certificates trusted instead of Node's root store (tests trust a self-signed
   * peer with it; operators add a private CA with NODE_EXTRA_CA_CERTS instead).
   */
  trustedCa?: string | Buffer | Array<string | Buffer>;
}

/**
 * The egress service from the validated config. Throws on an invalid CIDR in
 * `egressAllowCidrs` (config loading already refuses one, so this only guards direct callers).
 */
export function createEgress(config: EgressConfig, logger: Logger, options: EgressOptions = {}): Egress {
  return new EgressClient({
    policy: createAddressPolicy(config.egressAllowCidrs),
    connectTimeoutMs: config.egressConnectTimeoutMs,
    timeoutMs: config.egressTimeoutMs,
    maxResponseBytes: config.egressMaxResponseBytes,
    maxRetries: config.egressMaxRetries,
    retryBackoffMs: options.retryBackoffMs ?? 100,
    userAgent: options.userAgent ?? `Switchboard/${packageJson.version}`,
    resolve: options.resolve,
    trustedCa: options.trustedCa,
    logger,
  });
}
