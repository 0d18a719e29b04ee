import type { BodyFixtures } from '../../core/testing';

/** The runtime makes no resources of its own: its route takes the agents' and conversations' (their plugins' fixtures). */
export const fixtures = {};

/** A chat turn's body: the swept member is `conversation_uuid`; the message is any text. */
export const bodies: BodyFixtures = {
  'POST /api/v1/agents/:uuid/chat': () => ({ message: 'Hello' }),
};
