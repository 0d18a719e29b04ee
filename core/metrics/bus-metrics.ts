import { Counter, type Registry } from 'prom-client';

/** What the bus reports (core/bus holds no prom-client types). */
export interface BusMetrics {
  /** Messages written to the outbox by publishers (retries are counted as `retried`, not here). */
  published(topic: string, count: number): void;
  /** A delivery's outcome, once its transaction has committed. */
  delivered(consumer: string, topic: string, outcome: 'handled' | 'duplicate' | 'retry' | 'dead'): void;
}

/**
 * Counters by topic and consumer: both are fixed by code (plugins' constants), so the
 * label sets stay small.
 */
export function createBusMetrics(registry: Registry): BusMetrics {
  const counter = (name: string, help: string, labelNames: string[]) => new Counter({ name, help, labelNames, registers: [registry] });
  const published = counter('switchboard_bus_messages_published_total', 'Messages published to the bus (written to the outbox; a publish in a transaction that rolls back is counted too)', ['topic']);
  const handled = counter('switchboard_bus_messages_handled_total', 'Messages a consumer handled successfully', ['consumer', 'topic']);
  const retried = counter('switchboard_bus_messages_retried_total', 'Deliveries that failed and were scheduled again', ['consumer', 'topic']);
  const dead = counter('switchboard_bus_messages_dead_lettered_total', 'Messages dead-lettered after their last attempt', ['consumer', 'topic']);
  const duplicate = counter('switchboard_bus_messages_duplicate_total', 'Deliveries skipped because the consumer had handled the message already', ['consumer', 'topic']);
  const byOutcome = { handled, retry: retried, dead, duplicate };
  return {
    published: (topic, count) => published.inc({ topic }, count),
    delivered: (consumer, topic, outcome) => byOutcome[outcome]?.inc({ consumer, topic }),
  };
}
