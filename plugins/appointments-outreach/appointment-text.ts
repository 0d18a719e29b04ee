/**
 * The text of an appointment task: a template with `{{placeholder}}`s filled from the
 * appointment, its time on the schedule's wall clock (the contact lives by it, not by
 * UTC). Pure functions, so creation (to refuse a bad template) and the attempt (to
 * render it) read it the same way.
 */

export const APPOINTMENT_PURPOSES = ['reminder', 'confirmation'] as const;
export type AppointmentPurpose = (typeof APPOINTMENT_PURPOSES)[number];

/** What a template may name, and what each becomes. */
export const APPOINTMENT_PLACEHOLDERS = {
  starts_at_local: 'The start on the schedule’s wall clock, `YYYY-MM-DD HH:MM`',
  date: 'The local date in words, e.g. `Monday 7 December 2026` (English)',
  time: 'The local start time, `HH:MM` (24-hour)',
  timezone: 'The schedule’s IANA time zone, e.g. `Europe/Madrid`',
  schedule_name: 'The schedule’s name (whom or what the appointment is with)',
  contact_name: 'The contact’s name and surname (empty when they have none)',
} as const;
export type AppointmentValues = Record<keyof typeof APPOINTMENT_PLACEHOLDERS, string>;

/** The text sent when `task_data.message` is absent. */
export const DEFAULT_TEXTS: Record<AppointmentPurpose, string> = {
  reminder: 'Reminder: you have an appointment with {{schedule_name}} on {{date}} at {{time}} ({{timezone}}).',
  confirmation: 'Please confirm your appointment with {{schedule_name}} on {{date}} at {{time}} ({{timezone}}) by replying to this message, or tell us if you need another time.',
};

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

const isKnown = (name: string): name is keyof AppointmentValues => Object.prototype.hasOwnProperty.call(APPOINTMENT_PLACEHOLDERS, name);

/** `task_data.purpose`: absent (or null) is a reminder; anything else but the two is null. */
export function purposeOf(value: unknown): AppointmentPurpose | null {
  if (value === undefined || value === null) return 'reminder';
  return (APPOINTMENT_PURPOSES as readonly unknown[]).includes(value) ? (value as AppointmentPurpose) : null;
}

/** The placeholders a template names that are not among APPOINTMENT_PLACEHOLDERS, each once. */
export function unknownPlaceholders(template: string): string[] {
  const unknown = new Set<string>();
  for (const [, name] of template.matchAll(PLACEHOLDER)) if (!isKnown(name)) unknown.add(name);
  return [...unknown];
}

/** The template with every placeholder replaced (they are known: checked before). */
export function renderText(template: string, values: AppointmentValues): string {
  return template.replace(PLACEHOLDER, (all, name: string) => (isKnown(name) ? values[name] : all));
}

/** What the placeholders become for an appointment starting at `startsAt` in `timeZone`. */
export function appointmentValues(startsAt: string, timeZone: string, scheduleName: string, contactName: string): AppointmentValues {
  const instant = new Date(startsAt);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  const time = `${parts.hour}:${parts.minute}`;
  // Weekday, day, month and year spelled out, comma-free ("Monday 7 December 2026") whatever the ICU version puts between them.
  const words = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return {
    starts_at_local: `${parts.year}-${parts.month}-${parts.day} ${time}`,
    date: `${words.weekday} ${words.day} ${words.month} ${words.year}`,
    time,
    timezone: timeZone,
    schedule_name: scheduleName,
    contact_name: contactName,
  };
}

/** A contact's name as a text names them: name and surname, either, or empty. */
export const contactName = (contact: { name: string | null; surname: string | null } | undefined): string =>
  [contact?.name, contact?.surname].filter((part) => typeof part === 'string' && part.trim() !== '').join(' ');
