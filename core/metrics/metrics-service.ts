/**
 * What a plugin gets as `coreServices.metrics`: its own metrics in the process's
 * registry, served with the kernel's at `/metrics`. Names are given without a prefix
 * and registered as `switchboard_<plugin id>_<name>` (a `-` in the id becomes `_`), so
 * two plugins never collide and every series says whose it is.
 *
 * Label values must come from a small, fixed set (a status, a kind, a consumer): each
 * distinct combination is a series Prometheus keeps for good. Never a uuid, a path, a
 * user's input or a message.
 */
export type MetricLabels = Record<string, string | number>;

export interface CounterMetric {
  /** Adds `value` (default 1) to the series of `labels`. */
  inc(labels: MetricLabels, value?: number): void;
  inc(value?: number): void;
}

export interface GaugeMetric {
  set(labels: MetricLabels, value: number): void;
  set(value: number): void;
  inc(labels: MetricLabels, value?: number): void;
  inc(value?: number): void;
  dec(labels: MetricLabels, value?: number): void;
  dec(value?: number): void;
  /** Drops every series (a collect that failed shows nothing rather than an old value). */
  reset(): void;
}

export interface HistogramMetric {
  observe(labels: MetricLabels, value: number): void;
  observe(value: number): void;
}

export interface MetricSpec {
  /** Lower-case letters, digits and `_`; counters end in `_total`, units are spelled out (`_seconds`, `_bytes`). */
  name: string;
  help: string;
  labelNames?: readonly string[];
}

export interface MetricsService {
  counter(spec: MetricSpec): CounterMetric;
  /**
   * `collect` runs on each scrape, before the gauge is read: the place for a value read
   * from elsewhere (a queue's length). Keep it quick; a slow one delays the scrape.
   */
  gauge(spec: MetricSpec & { collect?: (gauge: GaugeMetric) => void | Promise<void> }): GaugeMetric;
  /** `buckets`: upper bounds, ascending (default: prom-client's, 5 ms to 10 s). */
  histogram(spec: MetricSpec & { buckets?: number[] }): HistogramMetric;
}
