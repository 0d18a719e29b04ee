import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ConflictError,
  HttpError,
  LlmError,
  LlmNotConfiguredError,
  NotFoundError,
  type AssistantMessage,
  type BusService,
  type ChatMessage,
  type Egress,
  type EventStreamWriter,
  type LlmService,
  type Logger,
  type TenantRef,
  type ToolMessage,
} from '../../../core';
import type { AgentDirectory, AgentJson, AgentView, GuardRuleJson } from '../../agents';
import type { ContactDirectory, ContactJson } from '../../contacts';
import type { Channel, ConversationJson, ConversationWriter, MessageJson } from '../../conversations';
import type { ContactMemoryReader } from '../../memorize';
import type { KnowledgeSearch, TableRecords } from '../../tables';
import { checkGuardRules } from '../guard/guard-check';
import { buildPrompt } from '../prompt';
import type { RuntimeSettings } from '../runtime-config';
import { toolCatalog } from '../tools/tool-catalog';
import type { RuntimeToolProvider, RuntimeToolTurn } from '../tools/tool-providers';
import { runTools, type ToolOutcome } from '../tools/tool-runner';
import { RUNTIME_TOPICS, type IntentCalledEvent } from '../topics';
import { activeRoutingRules, customerMessagesSinceIn, dailyLimit, guardRulesFor, localDayStart, splitMessages, workingHours } from '../turn-rules';
import type { ChatRequestJson, ChatTurnJson } from './chat-schemas';
import type { HeldLease, TurnLeases } from './turn-lease';

export interface TurnDeps {
  llm: LlmService;
  egress: Egress;
  bus: BusService;
  logger: Logger;
  agents: AgentDirectory;
  conversations: ConversationWriter;
  contacts: ContactDirectory;
  knowledge: KnowledgeSearch;
  records: TableRecords;
  memory: ContactMemoryReader;
  leases: TurnLeases;
  settings: RuntimeSettings;
  /** Other plugins' tools (the `runtimeToolProviders` point), each with the deps its plugin handed over. */
  toolProviders: readonly { provider: RuntimeToolProvider; deps: () => Readonly<Record<string, unknown>> }[];
}

/** What the checks before a turn found: the agent, and the conversation (opened for a first message). */
export interface BegunTurn {
  tenant: TenantRef;
  agent: AgentView;
  conversation: ConversationJson;
  message: string;
  /** How the customer's message is recorded: `text`, or `audio` for a voice note the channel transcribed (its content is the transcript). */
  messageType: 'text' | 'audio';
}

type GuardRule = GuardRuleJson;
type Transfer = NonNullable<ChatTurnJson['transfer']>;

const DEFAULT_TRANSFER_LINE = 'Let me transfer you now.';
const DEFAULT_CLOSING_LINE = 'Thank you for reaching out. Goodbye!';

/**
 * One turn of a conversation (decisions-2.md §1). Each transaction runs on a fresh fork,
 * so what one step read (the agent, the history) is not change-tracked by the next's flush.
 * `begin` does what can still answer with a status (404, 409) before a stream starts,
 * with reads only (a new conversation is opened there). `run` works in three steps,
 * none holding a database connection while the model or a tool is waited for:
 *   1. a short transaction takes the conversation's turn lease, records the customer's
 *      message and reads the history;
 *   2. outside any transaction: the rules that need no model (working hours, daily
 *      limits), else the prompt, the model rounds with their tools, and the guard check
 *      beside the first round;
 *   3. a short transaction records the agent's and the tools' messages, the status
 *      change, publishes `intent_called` and gives the lease back.
 */
export class Turn {
  constructor(private readonly deps: TurnDeps) {}

  async begin(em: EntityManager, tenant: TenantRef, agentUuid: string, body: ChatRequestJson, messageType: BegunTurn['messageType'] = 'text', read?: AgentJson): Promise<BegunTurn> {
    // The agent and the conversation are read side by side (two round trips at once, not one after the other).
    // The agents plugin's JSON, typed where the runtime reads it (AgentView); a caller's fresh read of the same agent is not repeated.
    // The conversation is read without a lock: the turn's first transaction checks its status again under its lock.
    const [agentRead, found] = await Promise.all([
      read?.agent_uuid === agentUuid ? read : this.deps.agents.getWithoutSlots(agentUuid),
      body.conversation_uuid ? this.deps.conversations.find(em.fork(), body.conversation_uuid) : null,
    ]);
    const agent = agentRead as AgentView | null;
    if (!agent) throw new NotFoundError('Agent not found');
    const inactive = () => new ConflictError(`The agent is ${agent.status}; only an active agent answers`);
    if (body.conversation_uuid) {
      // What does not exist answers 404 before what exists but cannot talk answers 409.
      if (!found) throw new NotFoundError('Conversation not found');
      if (agent.status !== 'active') throw inactive();
      if (found.agent_uuid !== agent.agent_uuid) throw new ConflictError('The conversation is another agent’s');
      if (found.status !== 'open') throw new ConflictError(`The conversation is ${found.status}`);
      return { tenant, agent, conversation: found, message: body.message, messageType };
    }
    if (agent.status !== 'active') throw inactive();
    const conversation = await em.fork().transactional(async (tx) => {
      const contact = body.contact && (body.contact.phone_number || body.contact.email) ? (await this.deps.contacts.findOrCreate(body.contact, 'contact')).contact : null;
      return this.deps.conversations.open(tx, { agentUuid: agent.agent_uuid, contactUuid: contact?.uuid ?? null, channel: (body.channel ?? 'chat') as Channel });
    });
    return { tenant, agent, conversation, message: body.message, messageType };
  }

  run(em: EntityManager, begun: BegunTurn, stream?: EventStreamWriter): Promise<ChatTurnJson> {
    const limit = dailyLimit(begun.agent);
    const conversationUuid = begun.conversation.uuid;
    // 1. The customer's message, and what the model is to see: the lease's own transaction.
    const first = async (tx: EntityManager): Promise<Opened> => {
      // Stamped once the lease is held: a turn that queued behind another comes after that one's replies.
      const now = new Date();
      const conversation = await this.deps.conversations.lock(tx, conversationUuid);
      if (!conversation) throw new NotFoundError('Conversation not found');
      if (conversation.status !== 'open') throw new ConflictError(`The conversation is ${conversation.status}`);
      const customer = await this.deps.conversations.record(tx, conversationUuid, { sender: 'customer', messageType: begun.messageType, content: begun.message, createdAt: now });
      const history = await this.deps.conversations.history(tx, conversationUuid, this.deps.settings.historyMessages);
      const since = limit ? localDayStart(begun.agent.timezone, now) : null;
      const today = since ? (customerMessagesSinceIn(history, this.deps.settings.historyMessages, since) ?? (await this.deps.conversations.countCustomerMessagesSince(tx, conversationUuid, since))) : 0;
      return { conversation, customer, history, today, now };
    };
    // What the prompt needs besides the history depends on nothing the first transaction does: read meanwhile.
    const reads = this.promptReads(begun);
    return this.deps.leases.run(em, begun.tenant.uuid, conversationUuid, first, (opened, lease) => this.underLease(em, begun, opened, lease, reads, stream));
  }

  /** The contact, its memory and the agent's knowledge tables, for the prompt and the tools. */
  private promptReads(begun: BegunTurn): Promise<PromptReads> {
    const agentUuid = begun.agent.agent_uuid;
    const contactUuid = begun.conversation.contact_uuid;
    const reads = Promise.all([
      contactUuid ? this.deps.contacts.get([contactUuid]).then((found) => found.get(contactUuid) ?? null) : null,
      contactUuid ? this.deps.memory.recall(agentUuid, contactUuid) : [],
      this.deps.knowledge.tablesOf(agentUuid),
    ]).then(([contact, memory, tables]) => ({ contact, memory, tables }));
    // A turn that ends before it reads them (refused by its first transaction, answered without the model) leaves them unawaited.
    reads.catch(() => {});
    return reads;
  }

  private async underLease(em: EntityManager, begun: BegunTurn, opened: Opened, lease: HeldLease, reads: Promise<PromptReads>, stream?: EventStreamWriter): Promise<ChatTurnJson> {
    const conversationUuid = begun.conversation.uuid;

    // 2. The answer.
    const answer = await this.answer(begun, opened.conversation, opened.history, opened.today, opened.now, reads, stream);

    // 3. What the turn said and did, recorded at once, and the lease given back.
    const turn = await em.fork().transactional(async (tx) => {
      // The tool calls, then what the agent said, in one go (one lock, one flush).
      const all = await this.deps.conversations.recordMany(tx, conversationUuid, [
        ...answer.tools.map((outcome) => ({ sender: 'agent' as const, messageType: 'tool' as const, content: toolMessageContent(outcome) })),
        ...answer.lines.map((line) => ({ sender: 'agent' as const, content: line })),
      ]);
      const intents = answer.tools.filter((outcome) => outcome.intentUuid).map((outcome) => intentCalled(begun, opened.conversation, outcome));
      if (intents.length > 0) await this.deps.bus.publishMany(RUNTIME_TOPICS.intentCalled, intents);
      const recorded: MessageJson[] = all.slice(answer.tools.length);
      if (answer.status !== 'open') await this.deps.conversations.setStatus(tx, conversationUuid, answer.status, answer.reason);
      const messages = recorded.map((message) => ({ uuid: message.message_uuid, content: message.content, created_at: message.created_at }));
      const result = {
        conversation_uuid: conversationUuid,
        session_uuid: opened.customer.session_uuid,
        status: answer.status,
        reply: messages.at(-1) ?? null,
        messages,
        tool_calls: answer.tools.map((outcome) => ({ name: outcome.call.name, arguments: outcome.call.arguments, status: outcome.status, duration_ms: outcome.durationMs })),
        transfer: answer.transfer,
      } satisfies ChatTurnJson;
      await this.deps.leases.release(tx, lease);
      return result;
    });
    lease.released = true;
    return turn;
  }

  /** Step 2: what the agent says, and what becomes of the conversation. Holds no database connection while it waits. */
  private async answer(
    begun: BegunTurn,
    conversation: ConversationJson,
    history: MessageJson[],
    customerMessagesToday: number,
    now: Date,
    reads: Promise<PromptReads>,
    stream: EventStreamWriter | undefined,
  ): Promise<Answer> {
    const { agent } = begun;
    const say = (lines: string[], rest: Partial<Answer> = {}): Answer => {
      for (const line of lines) stream?.emit('delta', { text: line });
      return { lines, tools: [], status: 'open', transfer: null, ...rest };
    };
    const hours = workingHours(agent, now);
    if (!hours.open) return say([hours.message]);
    const limit = dailyLimit(agent);
    if (limit && customerMessagesToday > limit.max) return say([limit.message]);

    const contactUuid = conversation.contact_uuid;
    const toolTurn: RuntimeToolTurn = { agentUuid: agent.agent_uuid, conversationUuid: conversation.uuid, contactUuid, channel: conversation.channel, now, signal: stream?.signal };
    const [{ contact, memory, tables }, offered] = await Promise.all([
      reads,
      Promise.all(this.deps.toolProviders.map(({ provider, deps }) => provider.tools(agent, toolTurn, deps()))).then((lists) => lists.flat()),
    ]);
    const catalog = toolCatalog(agent, tables, activeRoutingRules(agent), offered);
    const prompt = buildPrompt({
      agent,
      history: history.map((message) => ({ sender: message.sender, message_type: message.message_type, content: message.content })),
      memory,
      contact: contact ? { name: contact.name, phone_number: contact.phone_number, email: contact.email } : null,
      channel: conversation.channel,
      now,
      budgetTokens: this.deps.settings.promptBudgetTokens,
    });
    const baseUrl = agent.custom_llm_url ?? undefined;
    const signal = stream?.signal;

    // The guard check runs beside the first round. Until it has answered, streamed text
    // is held back: a fired rule drops the reply, and text on the wire cannot be taken back.
    const guardRules = guardRulesFor(agent, conversation.channel);
    const held: string[] = [];
    let guardPending = guardRules.length > 0;
    let fired: GuardRule | null = null;
    const guard = checkGuardRules(this.deps.llm, { rules: guardRules, recent: lastCustomerMessages(prompt.messages), agentUuid: agent.agent_uuid, baseUrl, signal })
      .catch((error) => {
        this.deps.logger.warn('guard check failed; no guard rule fires for this message', { agent_uuid: agent.agent_uuid, error: String(error) });
        return null;
      })
      .then((rule) => {
        fired = rule;
        guardPending = false;
        if (!rule) for (const text of held.splice(0)) stream?.emit('delta', { text });
        return rule;
      });
    const onDelta = stream ? (text: string) => (guardPending ? held.push(text) : fired ? undefined : stream.emit('delta', { text })) : undefined;

    const messages: ChatMessage[] = [...prompt.messages];
    const spoken: string[] = [];
    const tools: ToolOutcome[] = [];
    let effect: ToolOutcome['effect'];
    for (let round = 0; ; round++) {
      const toolsAllowed = round < this.deps.settings.maxToolRounds;
      const result = await this.model({
        messages,
        ...(toolsAllowed ? { tools: catalog.definitions, parallelToolCalls: true } : {}),
        agentUuid: agent.agent_uuid,
        purpose: 'runtime.turn',
        ...(baseUrl ? { baseUrl } : {}),
        ...(onDelta ? { onDelta } : {}),
        signal,
      });
      if (result.content && result.content.trim() !== '') spoken.push(result.content);
      if (result.toolCalls.length === 0 || !toolsAllowed) break;
      // No tool runs (an intent may book, cancel, charge) for a message a guard rule is about to take over.
      if (await guard) break;
      const outcomes = await runTools(result.toolCalls, {
        agentUuid: agent.agent_uuid,
        conversationUuid: conversation.uuid,
        contact: contact ? { uuid: contact.uuid, name: contact.name, phone_number: contact.phone_number, email: contact.email } : null,
        turn: toolTurn,
        catalog,
        egress: this.deps.egress,
        agents: this.deps.agents,
        knowledge: this.deps.knowledge,
        records: this.deps.records,
        intentTimeoutMs: this.deps.settings.intentTimeoutMs,
        signal,
      });
      for (const outcome of outcomes) {
        tools.push(outcome);
        stream?.emit('tool_call', { name: outcome.call.name, arguments: outcome.call.arguments, status: outcome.status, duration_ms: outcome.durationMs });
      }
      effect = outcomes.find((outcome) => outcome.effect)?.effect;
      if (effect) break;
      const assistant: AssistantMessage = { role: 'assistant', content: result.content, toolCalls: result.toolCalls };
      messages.push(assistant, ...outcomes.map((outcome): ToolMessage => ({ role: 'tool', toolCallId: outcome.call.id, content: JSON.stringify(outcome.result) })));
    }

    const rule = await guard;
    if (rule) {
      const forward = rule.then_action === 'forward';
      const line = (forward ? rule.say_before_forwarding : rule.say_before_end) || (forward ? DEFAULT_TRANSFER_LINE : DEFAULT_CLOSING_LINE);
      return say([line], {
        tools,
        status: forward ? 'transferred' : 'closed',
        reason: `guard:${rule.uuid}`,
        transfer: forward ? transferOf(rule.uuid, 'guard', rule) : null,
      });
    }
    if (effect?.kind === 'transfer') {
      const routing = catalog.routingRules.get(effect.ruleUuid)!;
      return say([routing.voice_response || DEFAULT_TRANSFER_LINE], { tools, status: 'transferred', reason: `routing:${routing.uuid}`, transfer: transferOf(routing.uuid, 'routing', routing) });
    }
    const text = spoken.join('\n\n');
    const lines = text.trim() === '' ? [] : splitMessages(agent, text);
    if (effect?.kind === 'end') {
      // The closing line is what the model said with the call; a default when it said nothing.
      const closing = lines.length > 0 ? lines : say([DEFAULT_CLOSING_LINE]).lines;
      return { lines: closing, tools, status: 'closed', reason: effect.reason ? `agent: ${effect.reason}` : 'agent', transfer: null };
    }
    return { lines, tools, status: 'open', transfer: null };
  }

  private async model(request: Parameters<LlmService['chat']>[0]) {
    try {
      return await this.deps.llm.chat(request);
    } catch (error) {
      if (error instanceof LlmNotConfiguredError) throw new HttpError(503, 'No model is configured (LLM_BASE_URL)');
      if (error instanceof LlmError) throw new HttpError(502, `The model did not answer: ${error.message}`);
      throw error;
    }
  }
}

/** What the turn reads for its prompt beside its first transaction (Turn.promptReads). */
interface PromptReads {
  contact: ContactJson | null;
  memory: Awaited<ReturnType<ContactMemoryReader['recall']>>;
  tables: Awaited<ReturnType<KnowledgeSearch['tablesOf']>>;
}

/** What the turn's first transaction recorded and read. */
interface Opened {
  conversation: ConversationJson;
  customer: MessageJson;
  history: MessageJson[];
  today: number;
  /** When the turn began, under the lease. */
  now: Date;
}

interface Answer {
  lines: string[];
  tools: ToolOutcome[];
  status: 'open' | 'transferred' | 'closed';
  reason?: string;
  transfer: Transfer | null;
}

function transferOf(ruleUuid: string, kind: 'routing' | 'guard', rule: { destination_type: string; destination: string; destination_agent_uuid: string | null }): Transfer {
  return { rule_uuid: ruleUuid, kind, destination_type: rule.destination_type, destination: rule.destination, destination_agent_uuid: rule.destination_agent_uuid };
}

/** The guard judges the newest customer message, with the two messages before it for context. */
function lastCustomerMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.filter((message) => message.role === 'user' || message.role === 'assistant').slice(-3);
}

/** A tool message's content: what the export and the messages listing show of the call. */
function toolMessageContent(outcome: ToolOutcome): string {
  return JSON.stringify({ name: outcome.call.name, arguments: outcome.call.arguments, status: outcome.status, duration_ms: outcome.durationMs, result: outcome.result });
}

function intentCalled(begun: BegunTurn, conversation: ConversationJson, outcome: ToolOutcome): IntentCalledEvent {
  return {
    agent_uuid: begun.agent.agent_uuid,
    conversation_uuid: conversation.uuid,
    contact_uuid: conversation.contact_uuid,
    intent_uuid: outcome.intentUuid!,
    intent: outcome.call.name,
    parameters: outcome.call.arguments,
    status: outcome.status,
    duration_ms: outcome.durationMs,
    result: outcome.result,
  };
}
