import { ValidationError } from '../../../core';
import { caldavApp } from '../../../plugins/app-caldav';
import { VendorError } from '../../../plugins/flows';
import { runAction } from '../../../plugins/flows/testing-kit';
import { dayFromNow, useRadicale } from './radicale-server';

const radicale = useRadicale();

const run = (key: string, input: Record<string, unknown>, options: { executionUuid?: string; stepUuid?: string } = {}) =>
  runAction(caldavApp, key, input, { egress: radicale.egress, connection: radicale.connection(), executionUuid: options.executionUuid, step: options.stepUuid ? { stepUuid: options.stepUuid } : {} });
const output = async (key: string, input: Record<string, unknown>) => (await run(key, input)).output as Record<string, any>;
const iso = (date: Date) => date.toISOString();
const find = (from: Date, to: Date, search?: string) => output('find_events', { calendar_id: radicale.work, from: iso(from), to: iso(to), ...(search ? { search } : {}) });

describe('create_event, then find_events', () => {
  it('stores a new event the server and find_events read back', async () => {
    const start = dayFromNow(3, 10);
    const end = dayFromNow(3, 11);
    const created = await output('create_event', { calendar_id: radicale.work, summary: 'Kickoff', start: iso(start), end: iso(end), location: 'Room 1', description: 'Agenda: plans' });
    expect(created).toEqual({
      id: expect.stringMatching(new RegExp(`^${radicale.work}[0-9a-f-]{36}\\.ics$`)),
      calendar_id: radicale.work,
      etag: expect.any(String),
      uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      summary: 'Kickoff',
      description: 'Agenda: plans',
      location: 'Room 1',
      start: iso(start),
      end: iso(end),
      all_day: false,
      recurring: false,
      status: null,
    });
    const stored = await radicale.server.request('alice', 'GET', created.id);
    expect(stored.status).toBe(200);
    expect(stored.text).toContain('SUMMARY:Kickoff');
    expect(stored.text).toContain(`UID:${created.uid}`);
    expect(stored.etag).toBe(created.etag);

    const found = await find(dayFromNow(3), dayFromNow(4));
    expect(found).toEqual({ events: [created], truncated: false });
    expect((await find(dayFromNow(5), dayFromNow(6))).events).toEqual([]);
    expect((await find(dayFromNow(3), dayFromNow(4), 'KICK')).events.map((event: { id: string }) => event.id)).toEqual([created.id]);
    expect((await find(dayFromNow(3), dayFromNow(4), 'nothing like it')).events).toEqual([]);
  });

  it('creates one event however often the same step is retried (its UID comes from the idempotency key)', async () => {
    const input = { calendar_id: radicale.work, summary: 'Retried', start: iso(dayFromNow(7, 9)), end: iso(dayFromNow(7, 10)) };
    const first = await run('create_event', input, { executionUuid: 'exec-1', stepUuid: 'step-1' });
    const again = await run('create_event', { ...input, summary: 'Retried' }, { executionUuid: 'exec-1', stepUuid: 'step-1' });
    expect(again.output).toEqual(first.output);
    const other = await run('create_event', input, { executionUuid: 'exec-2', stepUuid: 'step-1' });
    expect((other.output as { id: string }).id).not.toBe((first.output as { id: string }).id);
    expect((await find(dayFromNow(7), dayFromNow(8))).events).toHaveLength(2);
  });

  it('creates an all-day event on the dates given', async () => {
    const created = await output('create_event', { calendar_id: radicale.work, summary: 'Offsite', start: iso(dayFromNow(9, 12)), end: iso(dayFromNow(11, 12)), all_day: true });
    expect(created).toMatchObject({ all_day: true, start: iso(dayFromNow(9)).slice(0, 10), end: iso(dayFromNow(11)).slice(0, 10) });
  });

  it('refuses an event that ends before it starts (422 at config.end), and bad dates by path', async () => {
    const failure = await run('create_event', { calendar_id: radicale.work, summary: 'Backwards', start: iso(dayFromNow(3, 11)), end: iso(dayFromNow(3, 10)) }).catch((error: unknown) => error);
    expect((failure as ValidationError).errors).toEqual({ 'config.end': ['must be after start'] });
    const bad = await run('create_event', { calendar_id: radicale.work, summary: 'x', start: 'tomorrow', end: iso(dayFromNow(3)) }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).errors).toHaveProperty(['config.start']);
  });
});

describe('update_event', () => {
  it('changes the given fields, keeps the others, and bumps SEQUENCE, with If-Match on the version read', async () => {
    const created = await output('create_event', { calendar_id: radicale.work, summary: 'Draft review', start: iso(dayFromNow(12, 9)), end: iso(dayFromNow(12, 10)), location: 'Room 2' });
    const updated = await output('update_event', { calendar_id: radicale.work, event_id: created.id, summary: 'Final review', end: iso(dayFromNow(12, 11)) });
    expect(updated).toMatchObject({ id: created.id, uid: created.uid, summary: 'Final review', location: 'Room 2', start: created.start, end: iso(dayFromNow(12, 11)) });
    expect(updated.etag).not.toBe(created.etag);
    const stored = await radicale.server.request('alice', 'GET', created.id);
    expect(stored.text).toContain('SUMMARY:Final review');
    expect(stored.text).toContain('SEQUENCE:1');
    expect((await find(dayFromNow(12), dayFromNow(13))).events).toEqual([updated]);
  });

  it('keeps what the app does not manage (alarms) and refuses an event of another calendar (422)', async () => {
    const ics = [
      'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VEVENT', 'UID:alarmed', 'DTSTAMP:20260101T000000Z',
      `DTSTART:${iso(dayFromNow(14, 9)).replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`, 'DURATION:PT1H', 'SUMMARY:Dentist',
      'BEGIN:VALARM', 'ACTION:DISPLAY', 'DESCRIPTION:Reminder', 'TRIGGER:-PT15M', 'END:VALARM', 'END:VEVENT', 'END:VCALENDAR', '',
    ].join('\r\n');
    const href = await radicale.server.putObject('alice', radicale.work, 'alarmed.ics', ics);
    const updated = await output('update_event', { calendar_id: radicale.work, event_id: href, location: 'Main street' });
    expect(updated).toMatchObject({ summary: 'Dentist', location: 'Main street', end: iso(dayFromNow(14, 10)) });
    expect((await radicale.server.request('alice', 'GET', href)).text).toContain('TRIGGER:-PT15M');
    const failure = await run('update_event', { calendar_id: radicale.work, event_id: '/alice/other/alarmed.ics', summary: 'x' }).catch((error: unknown) => error);
    expect((failure as ValidationError).errors).toHaveProperty(['config.event_id']);
  });
});

describe('delete_event', () => {
  it('removes the event; a second delete says it found nothing', async () => {
    const created = await output('create_event', { calendar_id: radicale.work, summary: 'Cancelled call', start: iso(dayFromNow(20, 9)), end: iso(dayFromNow(20, 10)) });
    expect(await output('delete_event', { calendar_id: radicale.work, event_id: created.id })).toEqual({ id: created.id, calendar_id: radicale.work, deleted: true });
    expect((await radicale.server.request('alice', 'GET', created.id)).status).toBe(404);
    expect((await find(dayFromNow(20), dayFromNow(21))).events).toEqual([]);
    const again = await run('delete_event', { calendar_id: radicale.work, event_id: created.id }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(VendorError);
    expect((again as VendorError).message).toMatch(/^The CalDAV server found nothing to find the event to delete \(404/);
  });
});

describe('find_free_busy', () => {
  let calendar: string;
  const at = (hours: number) => dayFromNow(30, hours);
  const stamp = (date: Date) => iso(date).replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const put = (name: string, lines: string[]) =>
    radicale.server.putObject('alice', calendar, name, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VEVENT', `UID:${name}`, 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n'));

  beforeAll(async () => {
    calendar = await radicale.server.makeCalendar('alice', 'free-busy', 'Free busy');
    await put('a.ics', [`DTSTART:${stamp(at(9))}`, `DTEND:${stamp(at(10))}`, 'SUMMARY:A']);
    await put('b.ics', [`DTSTART:${stamp(at(9.5))}`, `DTEND:${stamp(at(10.5))}`, 'SUMMARY:B overlapping A']);
    await put('free.ics', [`DTSTART:${stamp(at(11))}`, `DTEND:${stamp(at(12))}`, 'TRANSP:TRANSPARENT', 'SUMMARY:Holiday marker']);
    await put('cancelled.ics', [`DTSTART:${stamp(at(12))}`, `DTEND:${stamp(at(13))}`, 'STATUS:CANCELLED', 'SUMMARY:Cancelled']);
    // A daily series that began two days earlier: its occurrence at 14:00-14:30 falls in the range.
    await put('daily.ics', [`DTSTART:${stamp(dayFromNow(28, 14))}`, `DTEND:${stamp(dayFromNow(28, 14.5))}`, 'RRULE:FREQ=DAILY;COUNT=5', 'SUMMARY:Daily']);
  });

  it('answers merged busy intervals (series expanded, transparent and cancelled left out), the free gaps and slots', async () => {
    const result = await output('find_free_busy', { calendar_id: calendar, from: iso(at(8)), to: iso(at(16)), slot_minutes: 60 });
    expect(result).toEqual({
      calendar_id: calendar,
      from: iso(at(8)),
      to: iso(at(16)),
      busy: [
        { start: iso(at(9)), end: iso(at(10.5)) },
        { start: iso(at(14)), end: iso(at(14.5)) },
      ],
      free: [
        { start: iso(at(8)), end: iso(at(9)) },
        { start: iso(at(10.5)), end: iso(at(14)) },
        { start: iso(at(14.5)), end: iso(at(16)) },
      ],
      slots: [
        { start: iso(at(8)), end: iso(at(9)) },
        { start: iso(at(10.5)), end: iso(at(11.5)) },
        { start: iso(at(11.5)), end: iso(at(12.5)) },
        { start: iso(at(12.5)), end: iso(at(13.5)) },
        { start: iso(at(14.5)), end: iso(at(15.5)) },
      ],
    });
  });

  it('clips busy time to the range and refuses a range that ends before it starts (422 at config.to)', async () => {
    const result = await output('find_free_busy', { calendar_id: calendar, from: iso(at(9.75)), to: iso(at(10.25)) });
    expect(result).toMatchObject({ busy: [{ start: iso(at(9.75)), end: iso(at(10.25)) }], free: [] });
    expect(result).not.toHaveProperty('slots');
    const failure = await run('find_free_busy', { calendar_id: calendar, from: iso(at(10)), to: iso(at(9)) }).catch((error: unknown) => error);
    expect((failure as ValidationError).errors).toEqual({ 'config.to': ['must be after from'] });
  });
});
