import type { EntityManager } from '@mikro-orm/postgresql';
import type { FieldErrors } from '../../core';
import { appointmentDirectoryRef, type AppointmentDirectory, type AppointmentJson } from '../appointments';
import { sendMessageExecutor } from '../channels';
import { contactDirectoryRef, type ContactDirectory } from '../contacts';
import type { TaskExecutionContext, TaskExecutor, TaskValidationContext } from '../outreach';
import { APPOINTMENT_PLACEHOLDERS, APPOINTMENT_PURPOSES, DEFAULT_TEXTS, appointmentValues, contactName, purposeOf, renderText, unknownPlaceholders, type AppointmentPurpose } from './appointment-text';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KNOWN = Object.keys(APPOINTMENT_PLACEHOLDERS).map((name) => `{{${name}}}`).join(', ');

type Appointment = AppointmentJson & { schedule_name: string };

/** The template a task's `task_data.message` gives (else its purpose's default), or why it cannot be one. */
function templateOf(message: unknown, purpose: AppointmentPurpose): { template: string } | { problem: string } {
  if (message === undefined || message === null) return { template: DEFAULT_TEXTS[purpose] };
  if (typeof message !== 'string' || message.trim() === '') return { problem: `must be a non-empty text (or absent for the ${purpose} default)` };
  const unknown = unknownPlaceholders(message);
  if (unknown.length > 0) return { problem: `names unknown placeholders ${unknown.map((name) => `{{${name}}}`).join(', ')}; known: ${KNOWN}` };
  return { template: message };
}

/** Why no message may go for this appointment to this contact now, or null. The same rules at creation and at each attempt. */
function refusal(appointment: Appointment, now: Date): string | null {
  if (appointment.status === 'cancelled') return `was cancelled${appointment.cancellation_reason ? ` (${appointment.cancellation_reason})` : ''}`;
  if (Date.parse(appointment.starts_at) <= now.getTime()) return `started at ${appointment.starts_at}: too late to remind of it or confirm it`;
  return null;
}

/** The appointment's text, rendered on its schedule's wall clock for the contact. */
const render = (template: string, appointment: Appointment, contact: string) =>
  renderText(template, appointmentValues(appointment.starts_at, appointment.timezone, appointment.schedule_name, contact));

/**
 * `task_data` of an appointment task, at creation in the creating transaction (read
 * only): a well-formed purpose and template, an appointment of the tenant that is not
 * cancelled nor begun, the task's contact being the appointment's, and the text as it
 * would go out now passing send_message's own checks (the channel, its length).
 */
async function validate(em: EntityManager, taskData: Record<string, unknown>, context: TaskValidationContext): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const add = (path: string, message: string) => void (errors[path] ??= []).push(message);
  const purpose = purposeOf(taskData.purpose);
  if (!purpose) add('task_data.purpose', `must be one of ${APPOINTMENT_PURPOSES.join(', ')}`);
  const text = templateOf(taskData.message, purpose ?? 'reminder');
  if ('problem' in text) add('task_data.message', text.problem);

  let appointment: Appointment | null = null;
  const uuid = taskData.appointment_uuid;
  if (uuid === undefined || uuid === null) add('task_data.appointment_uuid', 'is required: the appointment the message is about');
  else if (typeof uuid !== 'string' || !UUID.test(uuid)) add('task_data.appointment_uuid', 'must be a valid uuid');
  else {
    appointment = await (context.deps.appointments as AppointmentDirectory).get(uuid.toLowerCase());
    const refused = appointment && refusal(appointment, new Date());
    if (!appointment) add('task_data.appointment_uuid', 'is not an appointment of this tenant');
    else if (refused) add('task_data.appointment_uuid', `is an appointment that ${refused}`);
    else if (context.contact_uuid && appointment.contact_uuid && context.contact_uuid.toLowerCase() !== appointment.contact_uuid) {
      add('contact_uuid', `is not the appointment’s contact (${appointment.contact_uuid}): its messages go to that contact`);
    }
  }

  // The channel, and the length of the text as it would be rendered now (without the contact's name, which may not exist yet).
  const sample = appointment && 'template' in text ? render(text.template, appointment, '') : 'text';
  const sending = await sendMessageExecutor.validate(em, { message: sample, ...(taskData.channel !== undefined ? { channel: taskData.channel } : {}) });
  for (const [path, messages] of Object.entries(sending)) if (!errors[path]) errors[path] = messages;
  return errors;
}

/**
 * `appointment`: a reminder of an appointment, or a request to confirm it, sent to the
 * task's contact as a text through the agent's channel. Each attempt reads the
 * appointment again: one cancelled (or begun) since the task was made fails the attempt
 * and nothing is sent; otherwise its time is written on the schedule's wall clock and
 * the text goes out through the channels plugin's send_message executor, whose rules
 * (the channel picked, the chatapp's 24-hour window, pacing, receipts) apply unchanged.
 */
export const appointmentExecutor: TaskExecutor = {
  type: 'appointment',
  description:
    'Sends a reminder of the appointment task_data.appointment_uuid, or a request to confirm it (task_data.purpose), to the contact through the agent’s channel; ' +
    `task_data.message is a template with ${KNOWN} (a default text per purpose when absent)`,
  validate,
  // send_message's deps under its names (handed to it as they are), and the appointments to read.
  deps: { ...sendMessageExecutor.deps, appointments: appointmentDirectoryRef, contacts: contactDirectoryRef },
  async execute(context: TaskExecutionContext) {
    const { task } = context;
    const data = task.task_data;
    const purpose = purposeOf(data.purpose);
    if (!purpose) throw new Error(`task_data.purpose must be one of ${APPOINTMENT_PURPOSES.join(', ')}`);
    const text = templateOf(data.message, purpose);
    if ('problem' in text) throw new Error(`task_data.message ${text.problem}`);
    const uuid = typeof data.appointment_uuid === 'string' ? data.appointment_uuid.toLowerCase() : '';
    const appointment = UUID.test(uuid) ? await (context.deps.appointments as AppointmentDirectory).get(uuid) : null;
    if (!appointment) throw new Error(`the appointment ${String(data.appointment_uuid)} no longer exists: no ${purpose} sent`);
    const refused = refusal(appointment, new Date());
    if (refused) throw new Error(`the appointment ${refused}: no ${purpose} sent`);
    // It may have been given to someone else since the task was made: its news is not the task's contact's.
    if (appointment.contact_uuid && appointment.contact_uuid !== task.contact_uuid) throw new Error(`the appointment is now the contact ${appointment.contact_uuid}’s, not the task’s: no ${purpose} sent`);

    const contact = (await (context.deps.contacts as ContactDirectory).get([task.contact_uuid])).get(task.contact_uuid);
    const message = render(text.template, appointment, contactName(contact));
    const deps = Object.fromEntries(Object.keys(sendMessageExecutor.deps ?? {}).map((name) => [name, context.deps[name]]));
    const channel = typeof data.channel === 'string' ? { channel: data.channel } : {};
    const sent = await sendMessageExecutor.execute({ ...context, task: { ...task, task_data: { message, ...channel } }, deps });
    return { ...(sent as Record<string, unknown>), appointment_uuid: appointment.uuid, purpose };
  },
};
