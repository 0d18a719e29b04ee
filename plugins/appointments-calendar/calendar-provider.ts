import type { EntityManager } from '@mikro-orm/postgresql';
import type { Busy, ScheduleCalendar } from '../appointments';
import { flowActionsRef, type FlowActions } from '../flows';
import { CALENDAR_APPS, calendarApp, type CalendarApp } from './calendar-apps';

/** What the provider's code is handed (the services its plugin names for it). */
export const calendarDeps = { actions: flowActionsRef };
export interface CalendarDeps {
  actions: FlowActions;
}

const supported = CALENDAR_APPS.map((app) => `${app.uid} (${app.name})`).join(', ');

/** The connection's calendar app; throws (the slot search's 502) when the connection is gone or is not a calendar's. */
export async function appOf(actions: FlowActions, connectionUuid: string): Promise<CalendarApp> {
  const connection = await actions.connection(connectionUuid);
  if (!connection) throw new Error(`the calendar connection ${connectionUuid} no longer exists`);
  const app = calendarApp(connection.app_uid);
  if (!app) throw new Error(`the connection "${connection.label}" is of the app "${connection.app_uid}", which is not a calendar`);
  return app;
}

function busyOf(output: unknown): Busy[] {
  const periods = (output as { busy?: unknown } | null)?.busy;
  if (!Array.isArray(periods)) throw new Error('the calendar app answered free/busy without a `busy` list');
  return periods
    .map((period: { start?: unknown; end?: unknown }) => ({ start: new Date(String(period.start)), end: new Date(String(period.end)) }))
    .filter((period) => !Number.isNaN(period.start.getTime()) && !Number.isNaN(period.end.getTime()) && period.end > period.start);
}

/**
 * The `scheduleCalendars` provider: a schedule's `calendar_connection_uuid` must be a
 * flow connection of the tenant to a calendar app this plugin knows; its busy times are
 * the app's `find_free_busy`. The events this plugin wrote count too: another schedule
 * may share the calendar, and its appointments must block this one's slots.
 */
export const scheduleCalendar: ScheduleCalendar = {
  deps: calendarDeps,

  async check(_em: EntityManager, connectionUuid, deps) {
    const { actions } = deps as unknown as CalendarDeps;
    const connection = await actions.connection(connectionUuid);
    if (!connection) return 'is not a flow connection of this tenant (POST /api/v1/flow/connections)';
    if (!calendarApp(connection.app_uid)) return `is a connection of the app "${connection.app_uid}", which is not a calendar; use a connection of: ${supported}`;
    return null;
  },

  async busy(connectionUuid, from, to, deps) {
    const { actions } = deps as unknown as CalendarDeps;
    const app = await appOf(actions, connectionUuid);
    const calendarId = await app.calendarOf(actions, connectionUuid);
    return busyOf(await actions.run(app.uid, 'find_free_busy', connectionUuid, app.freeBusyInput(calendarId, from, to)));
  },
};
