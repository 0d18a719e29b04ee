import { caldavApp } from '../../../plugins/app-caldav';
import { runAction, runTrigger } from '../../../plugins/flows/testing-kit';
import { dayFromNow, useRadicale } from './radicale-server';

const radicale = useRadicale();

const poll = (calendarId: string, cursor: unknown) => runTrigger(caldavApp, 'event_created_or_changed', { calendar_id: calendarId }, { egress: radicale.egress, connection: radicale.connection(), cursor });
const act = async (key: string, input: Record<string, unknown>) => (await runAction(caldavApp, key, input, { egress: radicale.egress, connection: radicale.connection() })).output as Record<string, any>;
const create = (calendarId: string, summary: string, days: number) =>
  act('create_event', { calendar_id: calendarId, summary, start: dayFromNow(days, 9).toISOString(), end: dayFromNow(days, 10).toISOString() });

describe('event_created_or_changed (sync-collection)', () => {
  it('takes a baseline, then reports each new or changed event once, and nothing twice', async () => {
    const before = await create(radicale.work, 'Already there', 1);

    const baseline = await poll(radicale.work, null);
    expect(baseline.outputs).toEqual([]);
    expect(baseline.cursor).toMatchObject({ mode: 'sync', token: expect.any(String), pending: [] });

    const quiet = await poll(radicale.work, baseline.cursor);
    expect(quiet.outputs).toEqual([]);

    const created = await create(radicale.work, 'New meeting', 2);
    const afterCreate = await poll(radicale.work, quiet.cursor);
    expect(afterCreate.outputs).toEqual([created]);

    const again = await poll(radicale.work, afterCreate.cursor);
    expect(again.outputs).toEqual([]);

    const updated = await act('update_event', { calendar_id: radicale.work, event_id: before.id, summary: 'Moved', start: dayFromNow(3, 9).toISOString(), end: dayFromNow(3, 10).toISOString() });
    // Changed twice between two polls: reported once, as it is now.
    const twice = await act('update_event', { calendar_id: radicale.work, event_id: before.id, location: 'Room 9' });
    const afterUpdate = await poll(radicale.work, again.cursor);
    expect(afterUpdate.outputs).toEqual([twice]);
    expect(twice).toMatchObject({ id: updated.id, summary: 'Moved', location: 'Room 9' });

    const deleted = await act('delete_event', { calendar_id: radicale.work, event_id: created.id });
    expect(deleted.deleted).toBe(true);
    const afterDelete = await poll(radicale.work, afterUpdate.cursor);
    expect(afterDelete.outputs).toEqual([]);
    expect((await poll(radicale.work, afterDelete.cursor)).outputs).toEqual([]);
  });

  it('leaves out what is not an event (a task) and starts over from now when the server forgets the token', async () => {
    const tasks = await radicale.server.makeCalendar('alice', 'mixed', 'Mixed');
    const baseline = await poll(tasks, null);
    await radicale.server.putObject('alice', tasks, 'todo.ics', ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VTODO', 'UID:todo', 'DTSTAMP:20260101T000000Z', 'SUMMARY:Task', 'END:VTODO', 'END:VCALENDAR', ''].join('\r\n'));
    const event = await create(tasks, 'Event among tasks', 4);
    const next = await poll(tasks, baseline.cursor);
    expect(next.outputs).toEqual([event]);

    const forgotten = await poll(tasks, { mode: 'sync', token: 'http://radicale.org/ns/sync/unknown', pending: [] });
    expect(forgotten.outputs).toEqual([]);
    expect(forgotten.cursor).toMatchObject({ mode: 'sync', token: expect.stringMatching(/^http/) });
    expect(forgotten.logs.some((line) => /sync-token was refused/.test(String(line.message)))).toBe(true);
    expect((await poll(tasks, forgotten.cursor)).outputs).toEqual([]);
  });

  it('reads the pending changes of a long burst over several polls, each once', async () => {
    const burst = await radicale.server.makeCalendar('alice', 'burst', 'Burst');
    const baseline = await poll(burst, null);
    for (let index = 0; index < 3; index++) await create(burst, `Burst ${index}`, 5 + index);
    const hrefs = (await act('find_events', { calendar_id: burst, from: dayFromNow(4).toISOString(), to: dayFromNow(9).toISOString() })).events.map((event: { id: string }) => event.id);
    const next = await poll(burst, baseline.cursor);
    expect(next.outputs.map((event) => (event as { id: string }).id).sort()).toEqual([...hrefs].sort());
    expect((next.cursor as { pending: string[] }).pending).toEqual([]);
    // A cursor whose earlier poll left an href unread (more than a batch changed): the next poll reads it, once.
    const resumed = await poll(burst, { ...(next.cursor as object), pending: [hrefs[0]] });
    expect(resumed.outputs.map((event) => (event as { id: string }).id)).toEqual([hrefs[0]]);
    expect((await poll(burst, resumed.cursor)).outputs).toEqual([]);
  });
});

describe('event_created_or_changed (etag listing, for servers without sync-collection)', () => {
  it('compares every event’s etag with the cursor: new and changed once, nothing twice', async () => {
    const calendar = await radicale.server.makeCalendar('alice', 'etags', 'Etags');
    const first = await create(calendar, 'First', 1);
    const baseline = await poll(calendar, { mode: 'etags', etags: { [first.id]: first.etag } });
    expect(baseline.outputs).toEqual([]);
    expect(baseline.cursor).toEqual({ mode: 'etags', etags: { [first.id]: first.etag } });

    const second = await create(calendar, 'Second', 2);
    const changed = await act('update_event', { calendar_id: calendar, event_id: first.id, summary: 'First, changed' });
    const next = await poll(calendar, baseline.cursor);
    expect(next.outputs).toHaveLength(2);
    expect(next.outputs).toEqual(expect.arrayContaining([second, changed]));
    expect((await poll(calendar, next.cursor)).outputs).toEqual([]);
  });
});
