import { coreServices, definePlugin } from '../../../core';
import path from 'node:path';
import type { ApiClient } from '../../../core/testing';
import { RUNTIME_PLUGINS } from '../runtime/runtime-test-kit';

/** The appointments plugin and what it depends on, as `npm start` loads them. */
export const APPOINTMENT_PLUGINS = [...RUNTIME_PLUGINS, path.resolve(__dirname, '../../../plugins/appointments')];

const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** Open 09:00-17:00 every day unless `hours` says otherwise: tests need not care which weekday "in ten days" is. */
export async function makeSchedule(api: ApiClient, body: Record<string, unknown> = {}): Promise<string> {
  const weekly = Object.fromEntries(EVERY_DAY.map((day) => [day, [{ start: '09:00', end: '17:00' }]]));
  const res = await api.post('/api/v1/schedules').send({ name: 'Dr. Ruiz', timezone: 'Europe/Madrid', weekly_hours: weekly, ...body });
  if (res.status !== 201) throw new Error(`schedule: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.uuid;
}

export async function makeType(api: ApiClient, scheduleUuid: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post('/api/v1/availability-types').send({ name: 'Check-up', duration_minutes: 30, schedule_uuid: scheduleUuid, ...body });
  if (res.status !== 201) throw new Error(`type: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.uuid;
}

/** `YYYY-MM-DD`, `days` from today (UTC). */
export function dayFromNow(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The UTC instant of a Madrid wall-clock time on `date`, for dates far from a DST change:
 * Madrid is +01:00 in winter, +02:00 in summer (checked through Intl, not assumed).
 */
export function madrid(date: string, clock: string): string {
  const guess = new Date(`${date}T${clock}:00Z`);
  const offsetName = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Madrid', timeZoneName: 'shortOffset' }).formatToParts(guess).find((part) => part.type === 'timeZoneName')!.value;
  const hours = Number(offsetName.replace('GMT', '') || '0');
  return new Date(guess.getTime() - hours * 3_600_000).toISOString();
}

/** The same time as the tools write it for the model: Madrid's wall clock with its offset, `2026-12-07T15:00:00+01:00`. */
export function madridLocal(date: string, clock: string): string {
  const offsetHours = (Date.parse(`${date}T${clock}:00Z`) - Date.parse(madrid(date, clock))) / 3_600_000;
  return `${date}T${clock}:00+${String(offsetHours).padStart(2, '0')}:00`;
}

/** The tool definitions a chat completion request offered, by name. */
export const toolsOf = (request: { body: any }): Record<string, any> => Object.fromEntries((request.body.tools ?? []).map((tool: any) => [tool.function.name, tool.function]));

/** The JSON result of the last tool message the model was sent. */
export const lastToolResult = (request: { body: any }): any => JSON.parse(request.body.messages.filter((message: any) => message.role === 'tool').at(-1).content);

/** A plugin that records what the appointments plugin announces on the bus, in order, for a test's assertions. */
export function appointmentEventProbe() {
  const events: { topic: string; payload: any }[] = [];
  const plugin = definePlugin({
    id: 'appointment-probe',
    dependsOn: ['appointments'],
    deps: { bus: coreServices.bus },
    init({ bus }) {
      bus.consume({ name: 'appointment-events', topics: ['appointments.*'] }, async (message) => void events.push({ topic: message.topic, payload: message.payload }));
    },
  });
  return { plugin, events };
}
