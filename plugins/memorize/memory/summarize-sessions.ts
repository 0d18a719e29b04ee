import { newUuid, type BusService, type LlmService } from '../../../core';
import { CONVERSATION_TOPICS, type ConversationReader, type SessionClosedEvent } from '../../conversations';
import { memorizeOverrides } from '../memorize-overrides';
import type { MemorizeValues } from '../memorize-values';

/** The model's answer: the summary, and one value (or null) per configured field. */
interface Summary {
  summary: string;
  fields: Record<string, string | null>;
}

interface Prepared {
  settings: MemorizeValues;
  summary: Summary;
}

/** The longest transcript sent for a summary: the newest messages win when a session is longer. */
const MAX_TRANSCRIPT_CHARS = 40_000;

/**
 * Consumer of `session.closed`: with memorize enabled for the agent, a session of a known
 * contact in which the contact said something is summarized by the model (the
 * memorize `summary_prompt` and `fields`, structured output) and kept as the contact's
 * memory with that agent. The model call runs in `prepare`, outside the transaction; the
 * handler stores the row, once per session whatever the redeliveries.
 */
export function summarizeClosedSessions(bus: BusService, llm: LlmService, reader: ConversationReader): void {
  bus.consume<SessionClosedEvent, Prepared | null>(
    {
      name: 'summarize-sessions',
      topics: [CONVERSATION_TOPICS.sessionClosed],
      retry: { attempts: 5 },
      async prepare(message, { em }) {
        const event = message.payload;
        if (!event.contact_uuid) return null;
        const settings = (await memorizeOverrides.effective(em, event.agent_uuid)).values;
        if (!settings.enabled) return null;
        const session = await reader.sessionWithMessages(event.session_uuid);
        if (!session || !session.messages.some((m) => m.sender === 'customer')) return null;
        const transcript = transcriptOf(session.messages);
        const summary = (await llm.json({
          messages: [
            { role: 'system', content: instructions(settings) },
            { role: 'user', content: transcript },
          ],
          schema: summarySchema(settings),
          schemaName: 'contact_memory',
          purpose: 'memorize.summary',
          agentUuid: event.agent_uuid,
        })) as Summary;
        return { settings, summary };
      },
    },
    async (message, { em, prepared }) => {
      if (!prepared || !message.tenant) return;
      const event = message.payload;
      const now = new Date();
      const fields = Object.fromEntries(Object.entries(prepared.summary.fields ?? {}).filter(([, value]) => value !== null && value !== ''));
      // One memory per session: a redelivery after a commit that was not acknowledged writes nothing.
      await em.getConnection().execute(
        `insert into contact_memories (uuid, tenant_uuid, created_at, updated_at, agent_uuid, contact_uuid, session_uuid, conversation_uuid, summary, fields, expires_at) ` +
          `values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?) on conflict (session_uuid) do nothing`,
        [
          newUuid(),
          message.tenant.uuid,
          now,
          now,
          event.agent_uuid,
          event.contact_uuid,
          event.session_uuid,
          event.conversation_uuid,
          prepared.summary.summary,
          JSON.stringify(fields),
          new Date(now.getTime() + prepared.settings.retention_days * 86_400_000),
        ],
        'run',
        em.getTransactionContext(),
      );
    },
  );
}

function instructions(settings: MemorizeValues): string {
  const fields = settings.fields.map((field) => `- ${field.key}: ${field.description}`);
  return [
    settings.summary_prompt,
    'Answer with `summary` (a few sentences) and `fields`: for each key below, what the conversation says, or null when it says nothing.',
    ...fields,
  ].join('\n');
}

function summarySchema(settings: MemorizeValues): Record<string, unknown> {
  const properties = Object.fromEntries(settings.fields.map((field) => [field.key, { type: ['string', 'null'], description: field.description }]));
  return {
    type: 'object',
    properties: {
      summary: { type: 'string' },
      fields: { type: 'object', properties, required: settings.fields.map((field) => field.key), additionalProperties: false },
    },
    required: ['summary', 'fields'],
    additionalProperties: false,
  };
}

function transcriptOf(messages: ReadonlyArray<{ sender: string; message_type: string; content: string }>): string {
  const lines = messages.filter((m) => m.message_type === 'text' || m.message_type === 'audio').map((m) => `${m.sender}: ${m.content}`);
  let text = lines.join('\n');
  if (text.length > MAX_TRANSCRIPT_CHARS) text = text.slice(text.length - MAX_TRANSCRIPT_CHARS);
  return text;
}
