import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { removeBrokerTopology } from './broker-topology';
import { CaptureTransport } from './capture-logger';
import { Kernel } from '../kernel/kernel';
import type { PluginSource } from '../plugin/plugin-source';
import type { ProcessRole } from '../services/core-services';
import type { TenantRef } from '../context/request-context';
import { createTestDatabase } from './test-database';

export interface TestKernelOptions {
  /** Plugin definitions or plugin folders; none by default (the kernel alone). */
  plugins?: PluginSource[];
  /** Config overrides, e.g. `{ notes: { maxPerTenant: 2 } }`. */
  config?: Record<string, unknown>;
  role?: ProcessRole;
  /** Slug of the tenant created for the test (default `acme`). */
  tenant?: string;
  /**
   * A database to boot on instead of one created for the kernel (and dropped when it
   * stops): for a server the test runs itself, such as one with an extension the
   * machine's PostgreSQL lacks. The test owns it; the kernel migrates it and leaves it.
   */
  databaseUrl?: string;
  /**
   * Whether `stop` deletes the bus namespace's exchange and queues from the broker.
   * Default: only when the kernel made its namespace; a kernel given `busNamespace` (a
   * second process of one install) leaves them to the one that made them, since deleting
   * them would drop the messages queued for the processes still running.
   */
  removeBrokerTopology?: boolean;
}

export interface ApiClient {
  get(path: string): supertest.Test;
  post(path: string): supertest.Test;
  put(path: string): supertest.Test;
  patch(path: string): supertest.Test;
  delete(path: string): supertest.Test;
  head(path: string): supertest.Test;
  options(path: string): supertest.Test;
}

export interface TestTenant {
  tenant: TenantRef;
  token: string;
  /** HTTP client with this tenant's Host header and bearer token preset. */
  api: ApiClient;
}

export interface TestKernel extends TestTenant {
  kernel: Kernel;
  /** `http://127.0.0.1:<port>` of the real HTTP server. */
  url: string;
  /** The admin token, set on every test kernel so admin routes exist. */
  adminToken: string;
  /** The admin API with its token preset. */
  admin: ApiClient;
  /** A client with an arbitrary Host and optional token. */
  client(options: { host?: string; token?: string }): ApiClient;
  createTenant(slug?: string): Promise<TestTenant>;
  /** Every log line written so far, as JSON objects. */
  logs: Array<Record<string, unknown>>;
  /**
   * Resolves once the outbox is empty: every message written has been delivered and its
   * row removed. A relay deletes a delivered row a moment after the broker confirms it,
   * so a consumer's effect can be visible before the row is gone; assert an empty outbox
   * with this, never with one read of `kernel.bus.outbox.pending()`. Rejects with the
   * count still pending after `timeoutMs`.
   */
  outboxDrained(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Boots a real kernel (real PostgreSQL, real HTTP server on a free port) with just
 * the plugins under test, in a database of its own (or the one `databaseUrl` names),
 * with a tenant and a token ready.
 */
export async function startTestKernel(options: TestKernelOptions = {}): Promise<TestKernel> {
  const database = options.databaseUrl ? givenDatabase(options.databaseUrl) : await createTestDatabase();
  const logs: Array<Record<string, unknown>> = [];
  const adminToken = crypto.randomBytes(16).toString('hex');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-test-'));
  let kernel: Kernel;
  try {
    kernel = await Kernel.boot({
      role: options.role ?? 'start',
      plugins: options.plugins ?? [],
      env: {},
      migrate: true,
      config: {
        port: 0,
        host: '127.0.0.1',
        databaseUrl: database.url,
        databasePoolMax: 5,
        dataDir,
        adminToken,
        secretsKey: crypto.randomBytes(32).toString('base64'),
        // Kernels of parallel tests may share one broker: each gets its own exchange and queues.
        busNamespace: `sbtest-${crypto.randomBytes(4).toString('hex')}`,
        logLevel: process.env.LOG_LEVEL ?? 'info',
        // Peer servers a test starts live on loopback, which the default egress policy refuses.
        egressAllowCidrs: ['127.0.0.0/8'],
        ...options.config,
      },
      logTransports: [new CaptureTransport(logs)],
    });
    await kernel.start();
  } catch (error) {
    await database.drop().catch(() => {});
    throw error;
  }

  const url = kernel.options.role === 'serve' || kernel.options.role === 'start' ? kernel.url : '';
  const baseDomain = kernel.config.core.baseDomain;
  const client = ({ host, token }: { host?: string; token?: string }) => apiClient(url, host ?? baseDomain, token);
  const createTenant = async (slug = `t${crypto.randomBytes(4).toString('hex')}`): Promise<TestTenant> => {
    const { tenant, token } = await kernel.tenants.createTenant({ slug });
    const ref = { uuid: tenant.uuid, slug: tenant.slug, name: tenant.name };
    return { tenant: ref, token, api: apiClient(url, `${slug}.${baseDomain}`, token) };
  };
  const first = await createTenant(options.tenant ?? 'acme');

  return {
    ...first,
    kernel,
    url,
    adminToken,
    admin: apiClient(url, baseDomain, adminToken),
    client,
    createTenant,
    logs,
    outboxDrained: (timeoutMs = 15_000) => outboxDrained(kernel, timeoutMs),
    stop: async () => {
      await kernel.stop();
      if (options.removeBrokerTopology ?? !options.config?.busNamespace) await removeBrokerTopology(kernel);
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A database the test brought: the kernel uses it and leaves dropping it to its owner. */
function givenDatabase(url: string): { url: string; drop(): Promise<void> } {
  return { url, drop: async () => {} };
}

async function outboxDrained(kernel: Kernel, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await kernel.bus.outbox.pending();
    if (pending === 0) return;
    if (Date.now() > deadline) throw new Error(`the outbox still holds ${pending} message(s) after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function apiClient(url: string, host: string, token?: string): ApiClient {
  const request = supertest(url);
  const make =
    (method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options') =>
    (requestPath: string): supertest.Test => {
      const test = request[method](requestPath).set('Host', host);
      return token ? test.set('Authorization', `Bearer ${token}`) : test;
    };
  return { get: make('get'), post: make('post'), put: make('put'), patch: make('patch'), delete: make('delete'), head: make('head'), options: make('options') };
}
