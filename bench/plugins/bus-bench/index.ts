import { RequestContext } from '@mikro-orm/postgresql';
import { configRef, coreServices, definePlugin, type BusService, type OrmService, type TenantService } from '../../../core';

/** The topic every bench message is published on (the consumer listens to `bench.#`). */
export const BENCH_TOPIC = 'bench.event';

/** What a bench message carries (about 200 bytes of JSON). */
export interface BenchPayload {
  /** Which measured run it belongs to, so stragglers of another run are never counted. */
  run: string;
  seq: number;
  /** Wall-clock milliseconds (fractional) taken just before the message is written. */
  committedAt: number;
  [key: string]: unknown;
}

/** Wall-clock time with sub-millisecond resolution, comparable across the processes of one machine. */
export const now = (): number => performance.timeOrigin + performance.now();

/**
 * Where the host process hears about handled messages: the bench worker sets
 * `onHandled`. The handler does nothing else, so what is measured is the bus
 * itself: the outbox, the relay, the broker and the consumer's inbox transaction.
 */
export const sink: { onHandled?: (payload: BenchPayload, handledAt: number) => void } = {};

interface Publisher {
  /**
   * Commits one transaction that publishes `count` messages, as a write request
   * would: a forked EntityManager in a RequestContext, in the tenant's context.
   * `make(i)` builds the i-th payload just before it is published (so its
   * `committedAt` is as late as it can be). Resolves once the COMMIT is done.
   */
  transaction(tenant: { uuid: string; slug: string; name: string } | undefined, count: number, make: (i: number) => BenchPayload): Promise<void>;
}

/** Set in init; the bench's publishing process drives it. */
export const publisher: { current?: Publisher } = {};

const benchConfig = {
  concurrency: { doc: 'Handlers of the sink consumer running at once in one process', format: 'nat', default: 8 },
};

export default definePlugin({
  id: 'bus-bench',
  config: benchConfig,
  deps: { bus: coreServices.bus, orm: coreServices.orm, tenant: coreServices.tenant, config: configRef(benchConfig) },
  init({ bus, orm, tenant, config }) {
    bus.consume<BenchPayload>({ name: 'sink', topics: ['bench.#'], concurrency: config.get('concurrency') }, (message) => {
      sink.onHandled?.(message.payload, now());
    });
    publisher.current = makePublisher(bus, orm, tenant);
  },
});

function makePublisher(bus: BusService, orm: OrmService, tenants: TenantService): Publisher {
  return {
    transaction(tenant, count, make) {
      const work = () => {
        const em = orm.fork();
        return RequestContext.create(em, () =>
          em.transactional(async () => {
            for (let i = 0; i < count; i++) await bus.publish(BENCH_TOPIC, make(i));
          }),
        );
      };
      return tenant ? tenants.run(tenant, work) : work();
    },
  };
}
