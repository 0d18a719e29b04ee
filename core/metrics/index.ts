/** Prometheus metrics: the kernel's registry, its request/bus/LLM/database metrics, and where /metrics is served. */
export { Metrics } from './metrics';
export { metricsConfigSchema, type MetricsConfig } from './metrics-config';
export { MetricsServer, metricsRoute, METRICS_PATH } from './metrics-endpoint';
export { RequestMetrics, RouteSeries, UNMATCHED } from './request-metrics';
export type { BusMetrics } from './bus-metrics';
export type { LlmMetrics } from './llm-metrics';
export type { MetricsService, CounterMetric, GaugeMetric, HistogramMetric, MetricLabels, MetricSpec } from './metrics-service';
