import type { MikroORM } from '@mikro-orm/postgresql';
import { currentTenant } from '../context/request-context';
import type { Logger } from '../logging/logger';
import type { ProcessRole } from '../services/core-services';
import type { TenantDirectory } from '../tenancy/tenant-directory';
import { BootError } from '../errors/boot-error';
import type { PgListener } from '../data/pg-listener';
import type { BatchMessageHandler, BusService, ConsumerOptions, MessageHandler, PublishOptions, RegisteredConsumer } from './bus-types';
import { carryOverRenamedConsumers } from './renamed-consumers';
import { Delivery } from './delivery';
import { OutboxCommits } from './outbox-commits';
import { OutboxStore } from './outbox-store';
import { Relay } from './relay';
import { isValidTopic, isValidTopicPattern } from './topic-pattern';
import { AmqpTransport } from './transports/amqp-transport';
import { InProcessTransport } from './transports/in-process-transport';
import type { Transport } from './transports/transport';
import { HandlerConnections } from './handler-connections';
import type { BusMetrics } from '../metrics/bus-metrics';

export interface BusSettings {
  amqpUrl: string;
  namespace: string;
  relayBatchSize: number;
  pollIntervalMs: number;
  leaseSeconds: number;
  maxInFlight: number;
  inboxRetentionDays: number;
  /** Transactions this process's handlers may hold at once (see HandlerConnections). */
  handlerConnections: number;
  defaultAttempts: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
}

const CONSUMER_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * The bus of one kernel: the outbox publishers write to, the consumers plugins
 * register, and, once started, the relay and the transport (RabbitMQ with AMQP_URL,
 * in-process without).
 *
 * Who runs what: `worker` and `start` run the consumers and the relay; `serve` runs
 * the relay only with a broker (in-process delivery needs the consumers at hand).
 *
 * Wake-ups: once a transaction that wrote outbox rows commits, a process with a relay
 * wakes it directly; without a broker, or without a relay of its own (`serve` without
 * a broker, the CLI), it also sends one NOTIFY on `switchboard_outbox`, after the
 * commit, to the relays of the other processes (afterOutboxCommit).
 */
export class Bus {
  readonly consumers: RegisteredConsumer[] = [];
  readonly outbox: OutboxStore;
  readonly delivery: Delivery;
  private transport?: Transport;
  private relay?: Relay;
  private pruneTimer?: NodeJS.Timeout;
  private sealed = false;
  /** A NOTIFY for other processes' relays is waiting to be sent (commits close together share one). */
  private notifyScheduled = false;
  /** The NOTIFYs sent and to be sent, one after another. */
  private notifying: Promise<void> = Promise.resolve();

  constructor(
    private readonly orm: MikroORM,
    tenants: TenantDirectory,
    private readonly logger: Logger,
    /** The process's LISTEN connection: the relay wakes on the outbox's notifications. */
    private readonly notifications: PgListener,
    private readonly settings: BusSettings,
    /** Counts publishes and deliveries while /metrics is served (see core/metrics). */
    private readonly metrics?: BusMetrics,
  ) {
    const commits = new OutboxCommits(() => this.afterOutboxCommit());
    orm.em.getEventManager().registerSubscriber(commits);
    this.outbox = new OutboxStore(orm, settings.leaseSeconds, commits);
    this.delivery = new Delivery(orm, this.outbox, tenants, logger.child({ component: 'bus' }), new HandlerConnections(settings.handlerConnections), metrics);
  }

  /** The `bus` service as one plugin sees it: its consumer names are prefixed with its id. */
  serviceFor(pluginId: string): BusService {
    return {
      publish: (topic, payload, options) => this.publish(topic, payload, options),
      publishMany: (topic, payloads, options) => this.publishMany(topic, payloads, options),
      consume: (options, handler) => this.register(pluginId, options, handler),
      consumeBatch: (options, handler) => this.register(pluginId, options, (message, { em }) => handler([message], { em }), handler),
    };
  }

  async publish(topic: string, payload: unknown, options: PublishOptions = {}): Promise<string> {
    const em = this.publishingContext(topic, 'publish');
    const messageId = await this.outbox.insert(em as never, {
      topic,
      payload,
      headers: options.headers,
      tenantUuid: currentTenant()?.uuid ?? null,
      dedupeKey: options.key ?? null,
      delayMs: options.delay,
      at: options.at,
    });
    this.metrics?.published(topic, 1);
    return messageId;
  }

  async publishMany(topic: string, payloads: readonly unknown[], options: Omit<PublishOptions, 'key'> = {}): Promise<string[]> {
    const em = this.publishingContext(topic, 'publishMany');
    if ((options as PublishOptions).key !== undefined) throw new Error('bus.publishMany() takes no key: messages that replace one another cannot be published together');
    if (payloads.length === 0) return [];
    const messageIds = await this.outbox.insertMany(em as never, {
      topic,
      payloads,
      headers: options.headers,
      tenantUuid: currentTenant()?.uuid ?? null,
      delayMs: options.delay,
      at: options.at,
    });
    this.metrics?.published(topic, payloads.length);
    return messageIds;
  }

  /**
   * A transaction that wrote outbox rows has committed: the relay of this process
   * looks now. With a broker that is all (the broker shares the work among the
   * workers); without one, each worker's relay takes its share from the outbox, so the
   * others hear of it too, through one NOTIFY after the commit.
   */
  private afterOutboxCommit(): void {
    this.relay?.signal.notify();
    if (this.relay && this.settings.amqpUrl) return;
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    this.notifying = this.notifying
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.notifyScheduled = false;
        return this.outbox.notifyRelays();
      })
      .catch((error) => {
        this.logger.warn('waking the relays failed; they will look at their next poll', { error: String(error) });
      });
  }

  /** The publisher's EntityManager: publishing outside a transaction could deliver what never commits. */
  private publishingContext(topic: string, method: string) {
    if (!isValidTopic(topic)) throw new Error(`invalid topic "${topic}": dot-separated words of letters, digits, "_" and "-"`);
    let em;
    try {
      em = this.orm.em.getContext();
    } catch {
      em = undefined;
    }
    if (!em?.isInTransaction()) {
      throw new Error(`bus.${method}() must run inside a transaction (a write request or a consumer handler), so the message commits with the data`);
    }
    return em;
  }

  private register(pluginId: string, options: ConsumerOptions<any, any>, handler: MessageHandler<any, any>, batchHandler?: BatchMessageHandler<any>): void {
    if (this.sealed) throw new BootError(`plugin "${pluginId}" registered consumer "${options.name}" after start; register consumers in init`);
    if (!CONSUMER_NAME.test(options.name)) throw new BootError(`plugin "${pluginId}": consumer name "${options.name}" must be lower-case letters, digits, "-" and "_"`);
    const name = `${pluginId}.${options.name}`;
    if (this.consumers.some((c) => c.name === name)) throw new BootError(`plugin "${pluginId}" registers consumer "${options.name}" twice`);
    const invalid = options.topics.find((topic) => !isValidTopicPattern(topic));
    if (options.topics.length === 0 || invalid !== undefined) {
      throw new BootError(`consumer "${name}": topics must be a non-empty list of topic patterns${invalid !== undefined ? ` ("${invalid}" is not one)` : ''}`);
    }
    this.consumers.push({
      name,
      topics: [...options.topics],
      concurrency: Math.max(1, options.concurrency ?? 1),
      retry: {
        attempts: Math.max(1, options.retry?.attempts ?? this.settings.defaultAttempts),
        backoff: {
          initialMs: options.retry?.backoff?.initialMs ?? this.settings.backoffInitialMs,
          factor: options.retry?.backoff?.factor ?? 2,
          maxMs: options.retry?.backoff?.maxMs ?? this.settings.backoffMaxMs,
        },
      },
      prepare: options.prepare,
      prepareIf: options.prepareIf,
      prepareSeesHandled: options.prepareSeesHandled,
      inbox: options.inbox ?? true,
      handler,
      batchHandler,
      formerly: [...(options.formerly ?? [])],
    });
  }

  async start(role: ProcessRole): Promise<void> {
    this.sealed = true;
    if (role === 'cli') return;
    const consumes = role === 'worker' || role === 'start';
    const wake = () => this.relay?.signal.notify();
    if (consumes) await carryOverRenamedConsumers(this.orm, this.consumers, this.logger);
    if (this.settings.amqpUrl) {
      const amqp = new AmqpTransport(this.settings.amqpUrl, this.settings.namespace, this.consumers, this.delivery, this.outbox, this.logger.child({ component: 'bus' }), this.settings.relayBatchSize, wake);
      this.transport = amqp;
      await amqp.connect();
    } else if (consumes) {
      this.transport = new InProcessTransport(this.consumers, this.delivery, this.outbox, this.logger.child({ component: 'bus' }), this.settings.maxInFlight, wake);
    } else {
      return; // serve without a broker: messages wait in the outbox for a worker
    }
    if (consumes) {
      await this.transport.startConsuming();
      this.schedulePrune();
    }
    this.relay = new Relay(
      this.outbox,
      this.transport,
      this.notifications,
      { batchSize: this.settings.relayBatchSize, pollIntervalMs: this.settings.pollIntervalMs },
      this.logger.child({ component: 'relay' }),
    );
    await this.relay.start();
  }

  /** The prefetch a consumer is subscribed to the broker with (undefined without a broker or while not subscribed). */
  brokerPrefetchOf(consumerName: string): number | undefined {
    return this.transport instanceof AmqpTransport ? this.transport.prefetchOf(consumerName) : undefined;
  }

  /** For /readyz: throws while the broker is configured but not connected. */
  async checkBroker(): Promise<void> {
    await this.transport?.check();
    if (this.settings.amqpUrl && !this.transport) throw new Error('broker not started');
  }

  async stop(): Promise<void> {
    clearTimeout(this.pruneTimer);
    // The NOTIFY after this process's last commits, before the pool closes.
    await this.notifying;
    await this.relay?.stop();
    await this.transport?.stop();
    // In-process deliveries that finished after the relay stopped.
    await this.outbox.flushCompleted().catch((error) => this.logger.warn('deleting delivered outbox rows failed; their leases will run out', { error: String(error) }));
    await this.outbox.idle();
  }

  /** The inbox only needs to outlive redeliveries; older records are pruned in batches. */
  private schedulePrune(): void {
    const prune = async () => {
      try {
        const em = this.orm.em.fork();
        let removed: number;
        do {
          const result: any = await em
            .getConnection()
            .execute(
              `delete from bus_inbox where ctid in (select ctid from bus_inbox where handled_at < clock_timestamp() - (? * interval '1 day') limit 5000)`,
              [this.settings.inboxRetentionDays],
              'run',
            );
          removed = result.affectedRows ?? 0;
        } while (removed === 5000);
      } catch (error) {
        this.logger.warn('inbox pruning failed', { error: String(error) });
      }
      this.pruneTimer = setTimeout(prune, 60 * 60 * 1000);
      this.pruneTimer.unref();
    };
    this.pruneTimer = setTimeout(prune, 60_000);
    this.pruneTimer.unref();
  }
}
