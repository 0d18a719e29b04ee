import type { Request, Response } from 'express';
import type { TenantRef } from '../context/request-context';
import { HttpError } from '../http/http-errors';
import type { LimitsConfig } from './limits-config';
import type { BucketSpec } from './rate-buckets';
import type { RateDecision, RateLimiter } from './rate-limiter';

/** A route as the limits see it. */
export interface LimitedRoute {
  method: string;
  path: string;
  auth: string;
}

/**
 * Which buckets a request spends from: a tenant route its bearer token's and its tenant's;
 * an unauthenticated route (`tenant-host`, `public`) its client IP's and its hook's (route
 * template and path parameters: one webhook URL). Admin routes are not limited.
 */
export class RequestLimits {
  private readonly token?: BucketSpec;
  private readonly tenant?: BucketSpec;
  private readonly ip?: BucketSpec;
  private readonly hook?: BucketSpec;

  constructor(
    private readonly limiter: RateLimiter,
    config: LimitsConfig,
  ) {
    this.token = specOf(config.rateLimitTokenRps, config.rateLimitTokenBurst);
    this.tenant = specOf(config.rateLimitTenantRps, config.rateLimitTenantBurst);
    this.ip = specOf(config.rateLimitHookIpRps, config.rateLimitHookIpBurst);
    this.hook = specOf(config.rateLimitHookRps, config.rateLimitHookBurst);
  }

  /** Whether `route` has any limit: routeHandler skips the rest entirely when not. */
  applies(route: LimitedRoute): boolean {
    if (route.auth === 'tenant') return !!(this.token || this.tenant);
    if (route.auth === 'tenant-host' || route.auth === 'public') return !!(this.ip || this.hook);
    return false;
  }

  /**
   * Spends this request's tokens; throws a 429 (with `Retry-After` and the RateLimit-*
   * headers set on `res`) when a bucket is empty. Without a promise in the common case.
   */
  check(route: LimitedRoute, req: Request, res: Response, tenant: TenantRef | undefined, params: Record<string, string>): void | Promise<void> {
    let first: RateDecision | Promise<RateDecision> | undefined;
    let second: RateDecision | Promise<RateDecision> | undefined;
    if (route.auth === 'tenant') {
      // Authenticated already: the bearer is the tenant's own token.
      if (this.token) first = this.limiter.take(`token:${bearerOf(req)}`, this.token);
      if (this.tenant && tenant) second = this.limiter.take(`tenant:${tenant.uuid}`, this.tenant);
    } else {
      if (this.ip) first = this.limiter.take(`ip:${req.ip ?? req.socket.remoteAddress ?? ''}`, this.ip);
      if (this.hook) second = this.limiter.take(`hook:${tenant?.uuid ?? ''} ${route.method} ${route.path} ${JSON.stringify(params)}`, this.hook);
    }
    if (first instanceof Promise || second instanceof Promise) return Promise.all([first, second]).then(([a, b]) => enforce(res, a, b));
    enforce(res, first, second);
  }
}

function enforce(res: Response, ...decisions: Array<RateDecision | undefined>): void {
  for (const decision of decisions) {
    if (!decision || decision.allowed) continue;
    res.setHeader('Retry-After', String(decision.retryAfter));
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', '0');
    res.setHeader('RateLimit-Reset', String(decision.reset));
    throw new HttpError(429, `Too many requests: try again in ${decision.retryAfter} s`);
  }
}

function specOf(rps: number, burst: number): BucketSpec | undefined {
  if (!(rps > 0)) return undefined;
  return { rps, burst: burst > 0 ? burst : Math.max(1, Math.ceil(rps)) };
}

function bearerOf(req: Request): string {
  return (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
}
