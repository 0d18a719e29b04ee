import type { ChatMessage } from '../../../core';
import type { AgentJson } from '../../agents';

/** One recorded message of the conversation, oldest first (the conversations plugin's fields). */
export interface PromptHistoryMessage {
  /** `customer`, `agent`, `system`. */
  sender: string;
  /** `text`, `audio`, `event`, `tool`. */
  message_type: string;
  content: string;
}

/** A summary the memorize plugin kept of an earlier session with this contact. */
export interface PromptMemory {
  summary: string;
  fields: Record<string, unknown>;
  created_at: string;
}

export interface PromptContact {
  name?: string | null;
  phone_number?: string | null;
  email?: string | null;
}

export interface PromptInput {
  agent: AgentJson;
  /** The conversation so far, oldest first, the customer message of this turn included. */
  history: readonly PromptHistoryMessage[];
  memory: readonly PromptMemory[];
  contact: PromptContact | null;
  /** The conversation's channel (`chat`, `sms`, ...). */
  channel: string;
  now: Date;
  /** Estimated tokens the messages may take (see token-estimate.ts). */
  budgetTokens: number;
}

export interface PromptResult {
  /** The system message, then the history as user/assistant messages. */
  messages: ChatMessage[];
  estimatedTokens: number;
  /** How many history messages and training examples were cut to fit the budget. */
  dropped: { history: number; training: number };
}
