import { clockMinutes, workingHours } from '../../../../plugins/runtime/turn-rules';
import { agentFixture, textOf } from '../prompt/agent-fixture';

function agentWithHours(hours: Record<string, unknown>, agentOverrides: Record<string, unknown> = {}) {
  const agent = agentFixture(agentOverrides);
  Object.assign(textOf(agent).working_hours, { enabled: true, offline_message: 'We are closed.', ...hours });
  return agent;
}

const openAt = (agent: ReturnType<typeof agentFixture>, iso: string) => workingHours(agent, new Date(iso)).open;

describe('clockMinutes', () => {
  it('reads the 12-hour and 24-hour clocks of the schema', () => {
    expect(clockMinutes('9 AM')).toBe(540);
    expect(clockMinutes('9:30 pm')).toBe(1290);
    expect(clockMinutes('12 AM')).toBe(0);
    expect(clockMinutes('12 PM')).toBe(720);
    expect(clockMinutes('5PM')).toBe(1020);
    expect(clockMinutes('17:00')).toBe(1020);
    expect(clockMinutes('00:00')).toBe(0);
    expect(clockMinutes('13 PM')).toBeNull();
    expect(clockMinutes('25:00')).toBeNull();
    expect(clockMinutes(undefined)).toBeNull();
  });
});

describe('workingHours', () => {
  it('is open when working hours are disabled (the default)', () => {
    const agent = agentFixture();
    expect(workingHours(agent, new Date('2026-11-27T03:00:00Z'))).toEqual({ open: true });
  });

  it('answers the offline message outside a daytime window, in the window zone', () => {
    const agent = agentWithHours({ start: '9 AM', end: '5 PM', timezone: 'Europe/Madrid' });
    // Winter: Madrid is UTC+1.
    expect(workingHours(agent, new Date('2026-11-27T07:59:00Z'))).toEqual({ open: false, message: 'We are closed.' });
    expect(openAt(agent, '2026-11-27T08:00:00Z')).toBe(true);
    expect(openAt(agent, '2026-11-27T15:59:00Z')).toBe(true);
    expect(openAt(agent, '2026-11-27T16:00:00Z')).toBe(false);
    // Summer: UTC+2, so the same local window is one UTC hour earlier than in winter.
    expect(openAt(agent, '2026-07-01T06:59:00Z')).toBe(false);
    expect(openAt(agent, '2026-07-01T07:00:00Z')).toBe(true);
    expect(openAt(agent, '2026-07-01T14:59:00Z')).toBe(true);
    expect(openAt(agent, '2026-07-01T15:00:00Z')).toBe(false);
    // The day DST starts: 9 AM is already CEST.
    expect(openAt(agent, '2026-03-29T06:59:00Z')).toBe(false);
    expect(openAt(agent, '2026-03-29T07:00:00Z')).toBe(true);
    // Every day of the week: the schema has no days.
    expect(openAt(agent, '2026-11-29T10:00:00Z')).toBe(true);
  });

  it('spans midnight when end is before start', () => {
    const agent = agentWithHours({ start: '10 PM', end: '06:00', timezone: 'America/New_York' });
    expect(openAt(agent, '2026-11-27T03:00:00Z')).toBe(true); // 22:00 local
    expect(openAt(agent, '2026-11-27T02:59:00Z')).toBe(false); // 21:59
    expect(openAt(agent, '2026-11-27T05:00:00Z')).toBe(true); // 00:00
    expect(openAt(agent, '2026-11-27T10:59:00Z')).toBe(true); // 05:59
    expect(openAt(agent, '2026-11-27T11:00:00Z')).toBe(false); // 06:00
    expect(openAt(agent, '2026-11-27T18:00:00Z')).toBe(false); // 13:00
  });

  it('uses the agent zone when the window has none, and a default message when the offline message is empty', () => {
    const agent = agentWithHours({ start: '9 AM', end: '5 PM', timezone: '', offline_message: '  ' }, { timezone: 'Asia/Tokyo' });
    expect(workingHours(agent, new Date('2026-11-27T00:00:00Z'))).toEqual({ open: true }); // 09:00 Tokyo
    expect(workingHours(agent, new Date('2026-11-26T23:59:00Z'))).toEqual({
      open: false,
      message: 'We are available from 9 AM to 5 PM (Asia/Tokyo). Please write again then.',
    });
  });

  it('stays open on a window it cannot read or that is the whole day', () => {
    expect(openAt(agentWithHours({ start: 'nine', end: '5 PM' }), '2026-11-27T03:00:00Z')).toBe(true);
    expect(openAt(agentWithHours({ start: '9 AM', end: '9 AM' }), '2026-11-27T03:00:00Z')).toBe(true);
  });
});
