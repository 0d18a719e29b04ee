import type { EntityManager } from '@mikro-orm/postgresql';
import type { PollResult, TriggerPollContext } from '../app/flow-app';
import { engineHttp } from '../connections/connection-http';
import { loadConnection } from '../connections/connection-store';
import type { FlowsRuntime } from '../flows-runtime';
import type { FlowTriggers, LiveTrigger } from '../runs/flow-triggers';
import { liveTriggerContext } from './live-trigger-context';
import { POLL_TOPIC, publishPoll, type PollMessage } from './poll-message';
import { dropCursor, readCursor, storeCursor } from './trigger-cursors';

/** The most events one poll may return: a poll that returns more failed (the cursor stays), so apps page with the cursor. */
export const MAX_POLL_EVENTS = 500;

/** Polls running at once in one process. */
const POLL_CONCURRENCY = 4;

/** What a poll's prepare found, outside any transaction. */
type Polled =
  | { outcome: 'stopped' }
  | { outcome: 'failed'; error: string }
  | { outcome: 'polled'; readRevision: number; events: unknown[]; cursor: unknown };

const messageOf = (error: unknown) => (error instanceof Error ? error.message || error.name : String(error));

/** The answer as it will be stored (JSON), or a throw saying what is wrong with it (an app's code is not type-checked at run time). */
function checkedResult(result: unknown): { events: unknown[]; cursor: unknown } {
  const { events, cursor } = (result ?? {}) as Partial<PollResult>;
  if (!Array.isArray(events)) throw new Error('the poll answered no `events` array');
  if (events.length > MAX_POLL_EVENTS) throw new Error(`the poll answered ${events.length} events, more than ${MAX_POLL_EVENTS}: return a page and page on with the cursor`);
  return JSON.parse(JSON.stringify({ events, cursor: cursor ?? null }));
}

async function pollContext(runtime: FlowsRuntime, em: EntityManager, live: LiveTrigger, appUid: string): Promise<TriggerPollContext> {
  const context = liveTriggerContext(runtime, em, live);
  let connection = null;
  if (live.appConnectionUuid) {
    connection = await loadConnection(em, runtime.secrets, context.tenant.uuid, live.appConnectionUuid);
    if (!connection) throw new Error(`app connection ${live.appConnectionUuid} no longer exists`);
  }
  return { ...context, input: live.config, connection, http: engineHttp(runtime, runtime.catalog.app(appUid)?.auth, connection) };
}

/** The consumer's prepare: reads the cursor and runs the app's poll with no transaction open (it may call another system for seconds). */
async function poll(runtime: FlowsRuntime, triggers: FlowTriggers, em: EntityManager, message: PollMessage): Promise<Polled> {
  const live = await triggers.liveVersion(message.version_uuid);
  // The version of the trigger the flow was deployed with.
  const trigger = live && runtime.catalog.trigger(message.app_uid, message.trigger_key, live.version);
  if (live && !trigger?.poll) runtime.logger.warn('poll trigger of a live flow stopped: the app no longer has its version', { flow_uuid: live.flowUuid, app_uid: message.app_uid, trigger_key: message.trigger_key, version: live.version });
  if (!trigger?.poll || !live) return { outcome: 'stopped' };
  const stored = await readCursor(em, runtime.tenants.require().uuid, message.version_uuid);
  try {
    const result = await trigger.poll.run(await pollContext(runtime, em, live, message.app_uid), stored.cursor);
    return { outcome: 'polled', readRevision: stored.revision, ...checkedResult(result) };
  } catch (error) {
    return { outcome: 'failed', error: messageOf(error) };
  }
}

/**
 * In the message's transaction: the version still live, stores the new cursor, starts
 * one execution per event and publishes the next poll, all committed with the record
 * that the message was handled. A version no longer live ends its chain.
 */
async function record(runtime: FlowsRuntime, triggers: FlowTriggers, em: EntityManager, message: PollMessage, polled: Polled): Promise<void> {
  const tenantUuid = runtime.tenants.require().uuid;
  const live = polled.outcome === 'stopped' ? null : await triggers.liveVersion(message.version_uuid);
  const trigger = live && runtime.catalog.trigger(message.app_uid, message.trigger_key, live.version);
  if (!live || !trigger?.poll) {
    runtime.logger.debug('poll of a version that is not live (or whose trigger version the app no longer has) dropped', { version_uuid: message.version_uuid });
    await dropCursor(em, tenantUuid, message.version_uuid);
    return;
  }
  const logger = runtime.logger.child({ flow_uuid: live.flowUuid, version_uuid: live.versionUuid });
  if (polled.outcome === 'failed') {
    logger.warn('poll trigger failed; the next poll tries again with the same cursor', { app_uid: message.app_uid, trigger_key: message.trigger_key, error: polled.error });
  } else if (polled.outcome === 'polled') {
    if (!(await storeCursor(em, tenantUuid, live, polled.cursor, polled.readRevision))) {
      // Another poll of this version stored its cursor first (a second chain): it carries on, this one ends.
      logger.debug('poll superseded by another poll of the same version', { app_uid: message.app_uid, trigger_key: message.trigger_key });
      return;
    }
    for (const event of polled.events) await triggers.fire(live, event);
  }
  // The operator's interval, when set, replaces every trigger's own (a vendor's API quota, a test's patience).
  const seconds = runtime.config.get('pollIntervalSeconds') || trigger.poll.intervalSeconds;
  await publishPoll(runtime.bus, message, seconds * 1000);
}

/** The consumer of every deployed poll trigger's polls (deploy publishes the first: bound-definitions.ts). */
export function consumePolls(runtime: FlowsRuntime, triggers: FlowTriggers): void {
  runtime.bus.consume<PollMessage, Polled>(
    { name: 'poll-triggers', topics: [POLL_TOPIC], concurrency: POLL_CONCURRENCY, prepare: (message, { em }) => poll(runtime, triggers, em, message.payload) },
    (message, { em, prepared }) => record(runtime, triggers, em, message.payload, prepared),
  );
}
