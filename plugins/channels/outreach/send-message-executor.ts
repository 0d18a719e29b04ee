import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, findByUuid, type FieldErrors, type TenantRef } from '../../../core';
import { contactDirectoryRef, type ContactDirectory } from '../../contacts';
import type { TaskExecutionContext, TaskExecutor } from '../../outreach';
import { findConnection, openConnection } from '../connections/connection-store';
import { ChannelSendError, type ChannelDriver, type DriverContext } from '../driver';
import { ChatappTemplate } from '../entities';
import { templateFillErrors, templateSendComponents, type TemplateFill } from '../templates/template-message';
import { parameterText } from '../templates/template-values';
import { conversationChannel, queueReply } from '../turns/inbound-turns';
import { claimThread, threadOf } from '../turns/threads';
import type { ChannelAddress } from '../topics';
import { channelSendingRef, type SendMessageDeps } from './send-message-deps';
import { insideServiceWindow, SERVICE_WINDOW_HOURS } from './service-window';

/** Agent channel types a message task can go out on, in the order one is picked when `task_data.channel` names none. */
export const MESSAGE_CHANNEL_TYPES = ['chatapp', 'sms', 'social'] as const;
const MAX_TEXT = 4096;
const TEMPLATE = 'chatapp_template';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** What a template task fills: its placeholders' `variables`, its `header` value and its `buttons`. */
const fillOf = (taskData: Record<string, unknown>): TemplateFill => ({ variables: taskData.variables, header: taskData.header, buttons: taskData.buttons });

/**
 * `task_data` of a send_message task, checked when the task (or a campaign of them) is
 * created (with the template read in the creating transaction): a text needs `message`;
 * a chatapp template needs a template of the tenant, `variables` filling its
 * placeholders, and the `header` and `buttons` its components take.
 */
export async function checkSendMessageData(em: EntityManager, taskData: Record<string, unknown>): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const add = (path: string, message: string) => void (errors[path] ??= []).push(message);
  const channel = taskData.channel;
  if (channel !== undefined && channel !== null && !(MESSAGE_CHANNEL_TYPES as readonly unknown[]).includes(channel)) add('task_data.channel', `must be one of ${MESSAGE_CHANNEL_TYPES.join(', ')}`);
  if (taskData.message_type === TEMPLATE) {
    if (channel !== undefined && channel !== null && channel !== 'chatapp') add('task_data.channel', 'must be chatapp (or absent) for a chatapp template');
    const uuid = taskData.template_uuid;
    // Its presence and form are the outreach plugin's checks; a well-formed one must name a template of the tenant.
    if (typeof uuid !== 'string' || !/^[0-9a-f-]{36}$/i.test(uuid)) return errors;
    const template = await findByUuid(em, ChatappTemplate, uuid.toLowerCase());
    if (!template) add('task_data.template_uuid', 'is not a chatapp template of this tenant (POST /api/v1/chatapp/templates or /sync)');
    else Object.assign(errors, templateFillErrors(template, fillOf(taskData), 'task_data'));
    return errors;
  }
  if (taskData.message_type !== undefined && taskData.message_type !== null && taskData.message_type !== 'text') add('task_data.message_type', `must be text or ${TEMPLATE}`);
  for (const member of ['header', 'buttons']) if (taskData[member] !== undefined && taskData[member] !== null) add(`task_data.${member}`, `is only taken with message_type ${TEMPLATE}`);
  const message = taskData.message;
  if (typeof message !== 'string' || message.trim() === '') add('task_data.message', 'is required: the text to send (or use message_type chatapp_template)');
  else if (message.length > MAX_TEXT) add('task_data.message', `must be at most ${MAX_TEXT} characters`);
  return errors;
}

interface Route {
  address: ChannelAddress;
  driver: ChannelDriver;
  context: DriverContext;
}

/** The agent's active channel of the task's type with a connection whose driver is installed. */
async function routeOf(em: EntityManager, deps: SendMessageDeps, context: TaskExecutionContext, wanted: readonly string[]): Promise<Route> {
  const { task } = context;
  const agent = (await deps.agents.getWithoutSlots(task.agent_uuid)) as { channels?: Array<{ uuid: string; type: string; is_active: boolean; config?: Record<string, unknown> }> } | null;
  if (!agent) throw new Error('the task’s agent no longer exists');
  for (const type of wanted) {
    const channel = (agent.channels ?? []).find((candidate) => candidate.type === type && candidate.is_active && typeof candidate.config?.connection_uuid === 'string');
    if (!channel) continue;
    const connection = await findConnection(em, String(channel.config!.connection_uuid));
    const driver = connection ? deps.drivers.get(connection.provider) : undefined;
    if (!connection || !driver) continue;
    const hookUrl = `${deps.publicBaseUrl.replace(/\/+$/, '')}/hooks/channels/${channel.uuid}`;
    return {
      address: { channel_uuid: channel.uuid, agent_uuid: task.agent_uuid, connection_uuid: connection.uuid, channel_type: type, hook_url: hookUrl },
      driver,
      context: {
        connection: openConnection(deps.secrets, connection),
        egress: context.egress,
        apiBaseUrl: deps.drivers.apiBaseUrl(driver),
        hookUrl,
        logger: context.logger.child({ provider: driver.provider, channel_uuid: channel.uuid }),
      },
    };
  }
  throw new Error(`the agent has no active ${wanted.join(' or ')} channel with a channel connection to send through`);
}

/** The contact's phone number: where a message to them goes (read through the contacts plugin, in the attempt's tenant and transaction). */
async function addressOf(contacts: ContactDirectory, contactUuid: string): Promise<string> {
  const contact = (await contacts.get([contactUuid])).get(contactUuid);
  if (!contact) throw new Error('the task’s contact no longer exists');
  if (!contact.phone_number) throw new Error('the task’s contact has no phone_number to send to');
  return contact.phone_number;
}

/** Another message of the address (an inbound one) claimed the thread first. */
class ThreadTaken extends Error {}

/**
 * The conversation the message goes in: the open one of the channel's thread with this
 * address, else a new one with the contact, claimed as the thread's through its unique
 * key as an inbound message claims it (threads.ts): when a customer's message of the
 * address claimed it at the same moment, the conversation opened here is rolled back
 * (its savepoint) and the message goes in that one, so both end in one conversation.
 */
async function conversationFor(em: EntityManager, deps: SendMessageDeps, tenant: TenantRef, route: Route, to: string, contactUuid: string): Promise<{ uuid: string; threaded: string | null }> {
  const channelUuid = route.address.channel_uuid;
  const isOpen = async (uuid: string | null) => uuid !== null && (await deps.conversations.find(em, uuid))?.status === 'open';
  const threaded = await threadOf(em, tenant, channelUuid, to);
  if (await isOpen(threaded)) return { uuid: threaded!, threaded };
  try {
    const opened = await em.transactional(async (savepoint) => {
      const conversation = await deps.conversations.open(savepoint, { agentUuid: route.address.agent_uuid, contactUuid, channel: conversationChannel(route.address.channel_type) });
      if (!(await claimThread(savepoint, tenant, channelUuid, to, threaded, conversation.uuid))) throw new ThreadTaken();
      return conversation.uuid;
    });
    return { uuid: opened, threaded };
  } catch (error) {
    if (!(error instanceof ThreadTaken)) throw error;
  }
  // The winner's conversation, committed before our claim returned (it waited on the key).
  const winner = await threadOf(em, tenant, channelUuid, to);
  if (!(await isOpen(winner))) throw new Error('another message of the contact took the channel thread and its conversation is not open: tried again on the next attempt');
  return { uuid: winner!, threaded: winner };
}

/** The template's body with the values in place: what the conversation shows of a template message. */
function renderedBody(components: readonly unknown[], fill: TemplateFill): string {
  const body = components.find((component) => isRecord(component) && String(component.type).toLowerCase() === 'body') as { text?: unknown } | undefined;
  const parameters = templateSendComponents(components, fill).find((component) => component.type === 'body')?.parameters as unknown[] | undefined;
  let index = 0;
  const names: string[] = [];
  const text = typeof body?.text === 'string' ? body.text : '';
  return text.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_all, name: string) => {
    if (!names.includes(name)) names.push(name);
    index = names.indexOf(name);
    // A currency or date_time value reads as its fallback text, which the Cloud API shows.
    return parameterText(parameters?.[index]) ?? `{{${name}}}`;
  });
}

/**
 * Sends a template now, in the attempt (the runner holds the task's transaction while
 * executors call out, as the webhook executor does), and records it on the conversation
 * as an agent message with its delivery `sent` and the provider's id, so receipts update it.
 */
async function sendTemplate(em: EntityManager, deps: SendMessageDeps, tenant: TenantRef, context: TaskExecutionContext, route: Route, to: string, conversationUuid: string) {
  const { task_data: data } = context.task;
  const template = await findByUuid(em, ChatappTemplate, String(data.template_uuid).toLowerCase());
  if (!template) throw new Error('the task’s chatapp template no longer exists');
  const problems = templateFillErrors(template, fillOf(data), 'task_data');
  if (Object.keys(problems).length > 0) throw new Error(`the task_data does not fit the template: ${Object.entries(problems).map(([path, messages]) => `${path} ${messages.join(', ')}`).join('; ')}`);
  const credentials = route.context.connection.credentials as { business_account_id?: unknown };
  if (String(credentials.business_account_id) !== template.wabaId) throw new Error(`the template belongs to business account ${template.wabaId}, not to the agent channel’s connection`);
  if (!route.driver.sendTemplate) throw new Error(`the ${route.driver.name} driver cannot send templates`);
  let externalId: string;
  try {
    ({ externalId } = await route.driver.sendTemplate(route.context, {
      to,
      name: template.name,
      language: template.language,
      components: templateSendComponents(template.components, fillOf(data)),
      idempotencyKey: `${context.task.uuid}:${context.attempt}`,
    }));
  } catch (error) {
    throw new Error(`the template could not be sent: ${error instanceof ChannelSendError ? error.message : error instanceof Error ? error.message : String(error)}`);
  }
  const message = await deps.conversations.record(em, conversationUuid, { sender: 'agent', messageType: 'text', content: renderedBody(template.components, fillOf(data)) || `[template ${template.name}]` });
  // Sent already: settled, it holds none of the thread's later messages up.
  await boundQuery(
    em,
    'insert into channel_deliveries (uuid, tenant_uuid, created_at, updated_at, channel_uuid, external_id, recipient, settled_at) values ($1, $2, now(), now(), $3, $4, $5, now()) on conflict (uuid) do nothing',
    [message.message_uuid, tenant.uuid, route.address.channel_uuid, externalId, to],
  );
  await deps.conversations.setDelivery(em, message.message_uuid, 'sent');
  return { message_uuid: message.message_uuid, external_id: externalId };
}

/**
 * `send_message`: a text (`task_data.message`) or, with `message_type: chatapp_template`,
 * an approved template (`template_uuid`, `variables`, and `header` and `buttons` where its
 * components take them: template-message.ts) to the task's contact, through the
 * agent's channel (`task_data.channel`, else the first of chatapp, sms, social the agent
 * has with a connection). On the chatapp, free text goes only inside the customer-service
 * window (the customer wrote on that channel in the last 24 hours); outside it only a
 * template does, and the attempt fails saying so. A text is queued like an agent's reply
 * (paced, retried on 429/5xx, delivery receipts); a template is sent in the attempt.
 */
export const sendMessageExecutor: TaskExecutor & { validate(em: EntityManager, taskData: Record<string, unknown>): Promise<FieldErrors> } = {
  type: 'send_message',
  description: 'Sends task_data.message, or the chatapp template task_data.template_uuid with task_data.variables (and its header and buttons), to the contact through the agent’s channel',
  validate: checkSendMessageData,
  deps: { sending: channelSendingRef, contacts: contactDirectoryRef },
  async execute(context) {
    const deps = context.deps.sending as SendMessageDeps;
    const { em, task } = context;
    const tenant = deps.tenants.require();
    const data = task.task_data;
    const isTemplate = data.message_type === TEMPLATE;
    const wanted = isTemplate ? ['chatapp'] : typeof data.channel === 'string' ? [data.channel] : [...MESSAGE_CHANNEL_TYPES];
    const route = await routeOf(em, deps, context, wanted);
    const to = await addressOf(context.deps.contacts as ContactDirectory, task.contact_uuid);
    const conversation = await conversationFor(em, deps, tenant, route, to, task.contact_uuid);
    const base = { channel_uuid: route.address.channel_uuid, channel_type: route.address.channel_type, conversation_uuid: conversation.uuid, to };
    if (isTemplate) return { ...base, message_type: TEMPLATE, ...(await sendTemplate(em, deps, tenant, context, route, to, conversation.uuid)) };

    const text = typeof data.message === 'string' ? data.message : '';
    if (text.trim() === '') throw new Error('task_data.message is empty: nothing to send');
    if (route.address.channel_type === 'chatapp' && !(await insideServiceWindow(em, deps.conversations, conversation.threaded))) {
      throw new Error(`free text cannot be sent on the chatapp outside its ${SERVICE_WINDOW_HOURS}-hour customer-service window (the contact has not written in the last ${SERVICE_WINDOW_HOURS} hours): send a chatapp_template instead`);
    }
    const message = await deps.conversations.record(em, conversation.uuid, { sender: 'agent', messageType: 'text', content: text });
    await queueReply(em, deps, tenant, route.address, to, [{ uuid: message.message_uuid, content: text }]);
    return { ...base, message_type: 'text', message_uuid: message.message_uuid };
  },
};
