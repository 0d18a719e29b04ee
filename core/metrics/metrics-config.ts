import type { ConvictSchema } from '../config/convict-schema';

/**
 * Where `/metrics` is served, merged into the kernel's config schema. Both ways are off
 * by default: metrics name routes, consumers and tenants, which is for operators, and a
 * process that serves none records no request metrics at all (no cost on the hot path).
 */
export const metricsConfigSchema = {
  metricsPort: {
    doc: 'Port of a separate HTTP server answering only GET /metrics (Prometheus text format), in every role, workers included; 0: no such server',
    format: 'port',
    default: 0,
    env: 'METRICS_PORT',
  },
  metricsHost: {
    doc: 'Address the metrics server of METRICS_PORT binds to',
    format: String,
    default: '127.0.0.1',
    env: 'METRICS_HOST',
  },
  metricsToken: {
    doc: 'Bearer token of GET /metrics on the main HTTP port; empty: the main port has no /metrics',
    format: String,
    default: '',
    env: 'METRICS_TOKEN',
    sensitive: true,
  },
} satisfies ConvictSchema;

export interface MetricsConfig {
  metricsPort: number;
  metricsHost: string;
  metricsToken: string;
}
