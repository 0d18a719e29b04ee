import { EventEmitter } from 'node:events';
import { Registry } from 'prom-client';
import { countedRoute, RequestMetrics } from '../../../core/metrics/request-metrics';
import { valueOf } from './metrics-helpers';

/** A response as far as the request metric sees it: a status and a 'finish' event. */
function response(status: number): EventEmitter & { statusCode: number } {
  return Object.assign(new EventEmitter(), { statusCode: status });
}

function serve(metrics: RequestMetrics, handler: (req: { method: string }, res: object) => unknown, method: string, status: number): void {
  const res = response(status);
  metrics.start(res, method);
  handler({ method }, res);
  res.emit('finish');
}

describe('RequestMetrics', () => {
  it('counts by the route template and the method the request used (HEAD apart from GET)', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    const read = countedRoute(metrics, 'GET', '/api/v1/things/:uuid', () => {});
    serve(metrics, read, 'GET', 200);
    serve(metrics, read, 'GET', 404);
    serve(metrics, read, 'HEAD', 200);
    serve(metrics, () => {}, 'GET', 404);
    serve(metrics, () => {}, 'BREW', 404);
    const text = await registry.metrics();
    const route = '/api/v1/things/:uuid';
    expect(valueOf(text, 'switchboard_http_requests_total', { method: 'GET', route, status: '200' })).toBe(1);
    expect(valueOf(text, 'switchboard_http_requests_total', { method: 'GET', route, status: '404' })).toBe(1);
    expect(valueOf(text, 'switchboard_http_requests_total', { method: 'HEAD', route, status: '200' })).toBe(1);
    expect(valueOf(text, 'switchboard_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(valueOf(text, 'switchboard_http_requests_total', { method: 'OTHER', route: 'unmatched', status: '404' })).toBe(1);
    expect(text).not.toContain('BREW');
  });

  it('puts a latency equal to a bucket bound in that bucket (le is "at most")', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    const series = metrics.route('GET', '/x');
    series.record(200, 0.001);
    series.record(200, 0.0011);
    series.record(200, 100);
    const text = await registry.metrics();
    const bucket = (le: string) => valueOf(text, 'switchboard_http_request_duration_seconds_bucket', { route: '/x', le });
    expect(bucket('0.001')).toBe(1);
    expect(bucket('0.0025')).toBe(2);
    expect(bucket('10')).toBe(2);
    expect(bucket('+Inf')).toBe(3);
    expect(valueOf(text, 'switchboard_http_request_duration_seconds_count', { route: '/x' })).toBe(3);
    expect(valueOf(text, 'switchboard_http_request_duration_seconds_sum', { route: '/x' })).toBeCloseTo(100.0021, 6);
  });

  it('shows no latency series for a route never requested', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    metrics.route('GET', '/never');
    expect(await registry.metrics()).not.toContain('/never');
  });
});
