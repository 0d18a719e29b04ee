import type { EntityManager } from '@mikro-orm/postgresql';
import { createExtensionPoint } from '../../core';

/**
 * How an agent's conversations are cut into sessions:
 * - `sliding_timeout`: a session closes after `timeoutMinutes` of customer idleness
 *   (each customer message restarts the clock), or when its conversation closes;
 * - `per_conversation`: one session per conversation, closed when the conversation closes.
 */
export const SESSION_MODES = ['sliding_timeout', 'per_conversation'] as const;
export type SessionMode = (typeof SESSION_MODES)[number];

export interface Sessionization {
  mode: SessionMode;
  timeoutMinutes: number;
}

/**
 * The one place sessionization settings come from: the evaluation plugin fills it
 * with each agent's effective `sessionization` (its override, else the default).
 * Without a provider, every agent gets the conversations plugin's configured default.
 */
export interface SessionizationProvider {
  /** The agent's sessionization, in the caller's transaction and tenant. */
  forAgent(em: EntityManager, agentUuid: string): Promise<Sessionization>;
}

export const sessionizationProvider = createExtensionPoint<SessionizationProvider>({ id: 'conversations.sessionization', single: true });
