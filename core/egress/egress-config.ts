import convict from 'convict';
import type { ConvictSchema } from '../config/convict-schema';
import { parseCidr } from './address-policy';

/**
 * A comma-separated list of CIDRs, checked when the config is loaded so a typo in
 * EGRESS_ALLOW_CIDRS stops boot with the key named instead of failing the first call.
 */
convict.addFormat({
  name: 'cidr-list',
  validate(value: unknown) {
    if (!Array.isArray(value)) throw new Error('must be a list of CIDRs');
    for (const item of value) {
      if (typeof item !== 'string') throw new Error('must be a list of CIDRs');
      parseCidr(item);
    }
  },
  coerce: (value: string) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
});

/** The egress settings, merged into the kernel's config schema. */
export const egressConfigSchema = {
  egressAllowCidrs: {
    doc: 'Private, loopback or otherwise refused ranges outbound calls may reach anyway (comma-separated CIDRs, e.g. 10.20.0.0/16,fd00::/8): on-premises targets are often private',
    format: 'cidr-list',
    default: [] as string[],
    env: 'EGRESS_ALLOW_CIDRS',
  },
  egressConnectTimeoutMs: {
    doc: 'How long an outbound call may take to resolve and connect',
    format: 'nat',
    default: 5000,
    env: 'EGRESS_CONNECT_TIMEOUT_MS',
  },
  egressTimeoutMs: {
    doc: 'How long a whole outbound call may take (redirects, retries and reading the body included)',
    format: 'nat',
    default: 30000,
    env: 'EGRESS_TIMEOUT_MS',
  },
  egressMaxResponseBytes: {
    doc: 'Largest response body an outbound call reads',
    format: 'nat',
    default: 10 * 1024 * 1024,
    env: 'EGRESS_MAX_RESPONSE_BYTES',
  },
  egressMaxRetries: {
    doc: 'Retries of an outbound call that failed in a way safe to repeat (connection errors, 502/503/504 to an idempotent request)',
    format: 'nat',
    default: 2,
    env: 'EGRESS_MAX_RETRIES',
  },
} satisfies ConvictSchema;

export interface EgressConfig {
  egressAllowCidrs: string[];
  egressConnectTimeoutMs: number;
  egressTimeoutMs: number;
  egressMaxResponseBytes: number;
  egressMaxRetries: number;
}
