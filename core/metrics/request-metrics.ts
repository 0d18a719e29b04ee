import type { Registry } from 'prom-client';

/** Seconds; a read of the API takes about a millisecond, an import upload or a model call far longer. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route label of a request no route matched (404s, OPTIONS): raw paths would make the label unbounded. */
export const UNMATCHED = 'unmatched';

/** Methods that keep their name in the `unmatched` series; any other token counts as OTHER. */
const KNOWN_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The counts of one method and route template. Recording a request is a map lookup by
 * status and a few additions, with no label object or label hash made per request (what
 * prom-client's Counter and Histogram do on each `inc`/`observe`): the series are
 * turned into Prometheus samples only when scraped.
 */
export class RouteSeries {
  /** Requests by status code. */
  readonly statuses = new Map<number, number>();
  /** Requests per latency bucket (not cumulative; the last is +Inf). */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;
  /** HEAD runs the GET route but is counted as itself (made on the first HEAD request). */
  head?: RouteSeries;

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}

  record(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
    this.buckets[bucket]++;
    this.sum += seconds;
    this.count++;
  }
}

const STARTED = Symbol('metrics.started');
const SERIES = Symbol('metrics.series');

/** What the request metric keeps on a response: when it started, which series it counts in. */
interface Tracked {
  statusCode: number;
  [STARTED]: number;
  [SERIES]: RouteSeries;
  on(event: 'finish', listener: (this: Tracked) => void): unknown;
}

/** One function for every response (`this` is the response), so no closure is made per request. */
function finished(this: Tracked): void {
  this[SERIES].record(this.statusCode, (performance.now() - this[STARTED]) / 1000);
}

/**
 * `switchboard_http_requests_total{method,route,status}` and
 * `switchboard_http_request_duration_seconds{method,route}`, by route template
 * (`/api/v1/agents/:uuid`). A request is counted when its response finishes (a client
 * that goes away first is not counted).
 */
export class RequestMetrics {
  private readonly series: RouteSeries[] = [];
  private readonly unmatched = new Map<string, RouteSeries>();

  constructor(registry: Registry) {
    for (const method of [...KNOWN_METHODS, 'OTHER']) this.unmatched.set(method, this.add(method, UNMATCHED));
    registry.registerMetric(this.requestsMetric() as never);
    registry.registerMetric(this.durationMetric() as never);
  }

  /** The series of a route, made once when the app is built. */
  route(method: string, template: string): RouteSeries {
    return this.add(method.toUpperCase(), template);
  }

  /** Starts timing a request, counted as unmatched until `matched` names its route. */
  start(res: object, method: string): void {
    const tracked = res as Tracked;
    tracked[STARTED] = performance.now();
    tracked[SERIES] = this.unmatched.get(method) ?? this.unmatched.get('OTHER')!;
    tracked.on('finish', finished);
  }

  /** The request found its route. */
  matched(res: object, method: string, series: RouteSeries): void {
    const tracked = res as Tracked;
    if (tracked[STARTED] === undefined) return;
    tracked[SERIES] = method === 'HEAD' && series.method === 'GET' ? (series.head ??= this.add('HEAD', series.route)) : series;
  }

  private add(method: string, route: string): RouteSeries {
    const series = new RouteSeries(method, route);
    this.series.push(series);
    return series;
  }

  /** A prom-client metric in shape only (what Registry reads): its samples are made from the series at scrape time. */
  private requestsMetric() {
    return {
      name: 'switchboard_http_requests_total',
      help: 'HTTP requests by method, route template and status code',
      type: 'counter',
      get: async () => ({
        name: 'switchboard_http_requests_total',
        help: 'HTTP requests by method, route template and status code',
        type: 'counter',
        aggregator: 'sum',
        values: this.series.flatMap((s) => [...s.statuses].map(([status, value]) => ({ labels: { method: s.method, route: s.route, status: String(status) }, value }))),
      }),
    };
  }

  private durationMetric() {
    const name = 'switchboard_http_request_duration_seconds';
    const help = 'HTTP request latency by method and route template, until the response is handed to the operating system';
    return {
      name,
      help,
      type: 'histogram',
      get: async () => ({
        name,
        help,
        type: 'histogram',
        aggregator: 'sum',
        values: this.series
          .filter((s) => s.count > 0)
          .flatMap((s) => {
            const labels = { method: s.method, route: s.route };
            let cumulative = 0;
            const buckets = [...LATENCY_BUCKETS, '+Inf'].map((le, index) => {
              cumulative += s.buckets[index];
              return { metricName: `${name}_bucket`, labels: { ...labels, le: String(le) }, value: cumulative };
            });
            return [...buckets, { metricName: `${name}_sum`, labels, value: s.sum }, { metricName: `${name}_count`, labels, value: s.count }];
          }),
      }),
    };
  }
}

/** A route handler as the route table holds it: the response is its second argument. */
type Handler = (req: any, res: any, ...rest: any[]) => unknown;

/** `handler`, counting its requests under `method` and `template` (the series is made now, once). */
export function countedRoute<H extends Handler>(metrics: RequestMetrics | undefined, method: string, template: string, handler: H): H {
  if (!metrics) return handler;
  const series = metrics.route(method, template);
  return ((req, res, ...rest) => {
    metrics.matched(res, req.method, series);
    return handler(req, res, ...rest);
  }) as H;
}
