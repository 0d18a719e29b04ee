import type { AgentJson } from '../../agents';
import { textOf, textSettingsGroup } from '../prompt/agent-parts';
import { localParts, zoneOrUtc } from './local-time';

export type WorkingHours = { open: true } | { open: false; message: string };

/** `9 AM`, `9:30 pm`, `17:00` (the agents schema's Clock) as minutes after midnight, or null. */
export function clockMinutes(clock: unknown): number | null {
  if (typeof clock !== 'string') return null;
  const twelve = /^(\d{1,2})(?::(\d{2}))? ?([AaPp])[Mm]$/.exec(clock.trim());
  if (twelve) {
    const hour = Number(twelve[1]);
    const minute = Number(twelve[2] ?? 0);
    if (hour < 1 || hour > 12 || minute > 59) return null;
    return ((hour % 12) + (twelve[3].toLowerCase() === 'p' ? 12 : 0)) * 60 + minute;
  }
  const twentyFour = /^(\d{2}):(\d{2})$/.exec(clock.trim());
  if (twentyFour && Number(twentyFour[1]) < 24 && Number(twentyFour[2]) < 60) return Number(twentyFour[1]) * 60 + Number(twentyFour[2]);
  return null;
}

/**
 * Whether the agent answers now (`settings.text.working_hours`, decisions-2.md §1). The
 * schema has one daily window, every day of the week, in its own `timezone` (the agent's
 * when that is empty or unknown, else UTC). `start` is inclusive and `end` exclusive; an
 * `end` before `start` is a window across midnight (`10 PM`-`6 AM`); `start` = `end` is
 * open all day. Disabled, or a clock that cannot be read: open (the rule never
 * silences an agent by accident). Closed answers the `offline_message`, or a default
 * naming the hours when that is empty.
 */
export function workingHours(agent: AgentJson, now: Date): WorkingHours {
  const hours = textSettingsGroup(agent, 'working_hours');
  if (hours.enabled !== true) return { open: true };
  const start = clockMinutes(hours.start);
  const end = clockMinutes(hours.end);
  if (start === null || end === null || start === end) return { open: true };
  const zone = typeof hours.timezone === 'string' && hours.timezone !== '' ? zoneOrUtc(hours.timezone) : zoneOrUtc(textOf(agent, 'timezone'));
  const local = localParts(zone, now);
  const minute = local.hour * 60 + local.minute;
  const open = start < end ? minute >= start && minute < end : minute >= start || minute < end;
  if (open) return { open: true };
  const offline = typeof hours.offline_message === 'string' ? hours.offline_message.trim() : '';
  return { open: false, message: offline || `We are available from ${String(hours.start)} to ${String(hours.end)} (${zone}). Please write again then.` };
}
