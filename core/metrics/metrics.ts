import type { MikroORM } from '@mikro-orm/postgresql';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../logging/logger';
import { createBusMetrics, type BusMetrics } from './bus-metrics';
import { registerOutboxMetrics, registerPoolMetrics } from './database-metrics';
import { createLlmMetrics, type LlmMetrics } from './llm-metrics';
import type { MetricsConfig } from './metrics-config';
import type { GaugeMetric, MetricSpec, MetricsService } from './metrics-service';
import { RequestMetrics } from './request-metrics';

const METRIC_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * The metrics of one kernel, in a registry of its own (not prom-client's global one:
 * a test process runs several kernels). With METRICS_PORT and METRICS_TOKEN both unset
 * nothing can read them, so the kernel's own (HTTP, bus, models, process) are not
 * recorded at all and cost nothing; plugins' metrics are still registered (their
 * calls stay valid) but never read.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly enabled: boolean;
  readonly requests?: RequestMetrics;
  readonly bus?: BusMetrics;
  readonly llm?: LlmMetrics;

  constructor(readonly config: MetricsConfig) {
    this.enabled = config.metricsPort > 0 || config.metricsToken !== '';
    if (!this.enabled) return;
    collectDefaultMetrics({ register: this.registry });
    this.requests = new RequestMetrics(this.registry);
    this.bus = createBusMetrics(this.registry);
    this.llm = createLlmMetrics(this.registry);
  }

  /** The pool gauges and the outbox depth, read on each scrape. */
  watchDatabase(orm: MikroORM, poolMax: number, logger: Logger): void {
    if (!this.enabled) return;
    registerPoolMetrics(this.registry, orm, poolMax);
    registerOutboxMetrics(this.registry, orm, logger);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text of every metric, gauges collected now. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** `coreServices.metrics` as one plugin sees it: its names prefixed with its id. */
  serviceFor(pluginId: string): MetricsService {
    const prefix = `switchboard_${pluginId.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_`;
    const common = (spec: MetricSpec) => {
      if (!METRIC_NAME.test(spec.name)) throw new Error(`plugin "${pluginId}": metric name "${spec.name}" must be lower-case letters, digits and "_"`);
      return { name: prefix + spec.name, help: spec.help, labelNames: [...(spec.labelNames ?? [])], registers: [this.registry] };
    };
    return {
      counter: (spec) => new Counter(common(spec)),
      histogram: (spec) => new Histogram({ ...common(spec), ...(spec.buckets ? { buckets: spec.buckets } : {}) }),
      gauge: (spec) => {
        const collect = spec.collect;
        return new Gauge({
          ...common(spec),
          ...(collect
            ? {
                collect() {
                  return collect(this as unknown as GaugeMetric);
                },
              }
            : {}),
        });
      },
    };
  }
}
