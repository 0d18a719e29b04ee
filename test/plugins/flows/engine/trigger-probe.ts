import { Type, coreServices, createServiceFactory, createServiceRef, definePlugin, defineRoute, type BusMessage } from '../../../../core';
import { defineFlowApp, defineTrigger, flowAppDepsRef, flowApps } from '../../../../plugins/flows';

/**
 * A test app whose triggers are an event and a poll, both reading a service of the
 * plugin through the app's deps: the "outside system" is `Feed`, state the test owns.
 */

export interface FeedItem {
  id: number;
  text: string;
}

export interface Feed {
  /** What the outside system holds, oldest first. */
  items: FeedItem[];
  /** Every poll run: the version it ran for, the cursor it was given, whether a transaction was open, whether it threw. */
  polls: Array<{ version: string; cursor: unknown; inTransaction: boolean; failed?: boolean }>;
  /** Polls that throw before answering. */
  failNext: number;
  /** Every `matches` call of the signal trigger: the config's colour and the event's. */
  matched: Array<{ wanted: string; got: string }>;
}

export const newFeed = (): Feed => ({ items: [], polls: [], failNext: 0, matched: [] });

const feedRef = createServiceRef<Feed>('trigger-probe.feed');
const probeDeps = { feed: feedRef };

export const SIGNAL_TOPIC = 'probe.signal';

const newItems = defineTrigger({
  deps: probeDeps,
  key: 'new_items',
  name: 'New items',
  description: 'Polls the feed for items after the cursor (the newest id seen); the first poll takes a baseline.',
  input: Type.Object({ prefix: Type.Optional(Type.String()) }, { additionalProperties: false }),
  outputSample: { id: 1, text: 'hello' },
  poll: {
    intervalSeconds: 1,
    run({ deps, em, step, input }, cursor) {
      const poll = { version: step.versionUuid, cursor, inTransaction: em.isInTransaction(), failed: false };
      deps.feed.polls.push(poll);
      if (deps.feed.failNext > 0) {
        deps.feed.failNext--;
        poll.failed = true;
        throw new Error('the feed is unavailable');
      }
      const newest = deps.feed.items.at(-1)?.id ?? 0;
      if (typeof cursor !== 'number') return { events: [], cursor: newest };
      const fresh = deps.feed.items.filter((item) => item.id > cursor && (!input.prefix || item.text.startsWith(input.prefix)));
      return { events: fresh, cursor: newest };
    },
  },
});

const signal = defineTrigger({
  deps: probeDeps,
  key: 'signal',
  name: 'Signal',
  description: 'Starts the flow for each signal of its colour.',
  input: Type.Object({ color: Type.String() }, { additionalProperties: false }),
  outputSample: { color: 'red' },
  event: {
    topic: SIGNAL_TOPIC,
    matches(config, message: BusMessage<{ color: string }>, { deps }) {
      deps.feed.matched.push({ wanted: config.color, got: message.payload.color });
      return config.color === message.payload.color;
    },
  },
});

export const probeFeedApp = defineFlowApp({
  uid: 'probe_feed',
  name: 'Probe feed',
  description: 'Event and poll triggers for the engine tests',
  icon: 'https://example.com/feed.svg',
  category: 'builtin',
  deps: probeDeps,
  triggers: [newItems, signal],
});

/** The plugin, over `feed`; it hands the app's deps over itself (it has an init of its own: a route that publishes signals). */
export const triggerProbe = (feed: Feed) =>
  definePlugin({
    id: 'trigger-probe',
    dependsOn: ['flows'],
    services: [createServiceFactory({ service: feedRef, deps: {}, factory: () => feed })],
    contributes: [flowApps.add(probeFeedApp)],
    deps: { http: coreServices.http, bus: coreServices.bus, appDeps: flowAppDepsRef, feed: feedRef },
    init({ http, bus, appDeps, feed: service }) {
      appDeps.provide(probeFeedApp, { feed: service });
      http.route(
        defineRoute({
          method: 'POST',
          path: '/api/v1/probe-feed/signals',
          summary: 'Publishes a signal event, caused by `caused_by` when given',
          body: Type.Object({ color: Type.String(), caused_by: Type.Optional(Type.String()) }, { additionalProperties: false }),
          status: 204,
          handler: async ({ body }) => {
            await bus.publish(SIGNAL_TOPIC, { color: body.color }, body.caused_by ? { headers: { 'caused-by': body.caused_by } } : undefined);
          },
        }),
      );
    },
  });
