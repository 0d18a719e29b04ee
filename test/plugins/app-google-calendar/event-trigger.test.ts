import { googleCalendarApp, type EventChange, type SyncCursor } from '../../../plugins/app-google-calendar';
import { runTrigger } from '../../../plugins/flows/testing-kit';
import { useCalendarVendor } from './calendar-test-setup';

const vendor = useCalendarVendor([
  { id: 'ada@example.com', summary: 'Ada', primary: true },
  { id: 'busy@group.calendar.google.com', summary: 'Busy' },
  { id: 'other@group.calendar.google.com', summary: 'Other' },
]);
const CALENDAR = 'ada@example.com';
const MINUTE = 60_000;

/** One poll with the previous poll's cursor; its events and next cursor. */
async function poll(cursor: unknown, input: Record<string, unknown> = { calendar_id: CALENDAR }) {
  const run = await runTrigger(googleCalendarApp, 'event_created_or_changed', input, { ...vendor.call(), cursor });
  return { events: run.outputs as EventChange[], cursor: run.cursor as SyncCursor, logs: run.logs };
}

const eventRequests = () => vendor.google.requests.filter((request) => request.path.endsWith('/events') && request.method === 'GET');

describe('event_created_or_changed', () => {
  it('takes a baseline first (existing events start nothing), then emits each change once with what changed', async () => {
    const { state } = vendor.google;
    state.putEvent(CALENDAR, { id: 'existing01', summary: 'Already there' });
    const baseline = await poll(null);
    expect(baseline.events).toEqual([]);
    expect(baseline.cursor).toEqual({ calendar_id: CALENDAR, sync_token: expect.any(String) });
    expect(eventRequests().at(-1)!.query.has('syncToken')).toBe(false);

    const quiet = await poll(baseline.cursor);
    expect(quiet.events).toEqual([]);
    expect(eventRequests().at(-1)!.query.get('syncToken')).toBe(baseline.cursor.sync_token);

    state.putEvent(CALENDAR, { id: 'newevent01', summary: 'New', start: { dateTime: '2025-03-10T10:00:00Z' }, end: { dateTime: '2025-03-10T11:00:00Z' } });
    const created = await poll(quiet.cursor);
    expect(created.events).toEqual([expect.objectContaining({ id: 'newevent01', summary: 'New', change: 'created', calendar_id: CALENDAR, start: '2025-03-10T10:00:00Z' })]);
    expect((await poll(created.cursor)).events).toEqual([]);

    // Changed twice between two polls: one execution, with the latest version.
    state.advance(5 * MINUTE);
    state.putEvent(CALENDAR, { id: 'newevent01', summary: 'New (moved)' });
    state.putEvent(CALENDAR, { id: 'newevent01', summary: 'New (moved again)' });
    const updated = await poll(created.cursor);
    expect(updated.events.map((event) => [event.id, event.summary, event.change])).toEqual([['newevent01', 'New (moved again)', 'updated']]);
    expect((await poll(updated.cursor)).events).toEqual([]);
  });

  it('leaves deleted events out unless include_cancelled asks for them', async () => {
    const { state } = vendor.google;
    const input = { calendar_id: CALENDAR, include_cancelled: true };
    const start = await poll(null, input);
    const plain = (await poll(null)).cursor;
    state.putEvent(CALENDAR, { id: 'doomed0001', summary: 'Doomed' });
    const seen = await poll(start.cursor, input);
    const seenPlain = await poll(plain);
    state.removeEvent(CALENDAR, 'doomed0001');
    expect((await poll(seen.cursor, input)).events.map((event) => [event.id, event.change, event.status])).toEqual([['doomed0001', 'cancelled', 'cancelled']]);
    expect((await poll(seenPlain.cursor)).events).toEqual([]);
  });

  it('pages a large change set through Google’s page tokens, at most 500 events a poll, each event once', async () => {
    const calendar = 'busy@group.calendar.google.com';
    const { state } = vendor.google;
    const baseline = await poll(null, { calendar_id: calendar });
    for (let i = 0; i < 620; i++) state.putEvent(calendar, { id: `bulk${String(i).padStart(4, '0')}`, summary: `Bulk ${i}` });

    const first = await poll(baseline.cursor, { calendar_id: calendar });
    expect(first.events).toHaveLength(500);
    expect(first.cursor.page_token).toEqual(expect.any(String));
    const pages = eventRequests().slice(-2);
    expect(pages.map((request) => request.query.get('maxResults'))).toEqual(['250', '250']);
    expect(pages[1].query.get('pageToken')).toEqual(expect.any(String));

    // Changes made meanwhile belong to the next sync, not to the one being paged.
    state.putEvent(calendar, { id: 'bulk0000', summary: 'Bulk 0, changed' });
    const second = await poll(first.cursor, { calendar_id: calendar });
    expect(second.events).toHaveLength(120);
    expect(second.cursor.page_token).toBeUndefined();
    const ids = [...first.events, ...second.events].map((event) => event.id);
    expect(new Set(ids).size).toBe(620);

    const third = await poll(second.cursor, { calendar_id: calendar });
    expect(third.events.map((event) => [event.id, event.summary])).toEqual([['bulk0000', 'Bulk 0, changed']]);
  });

  it('a page token Google no longer takes is replaced by listing the sync again, skipping what was emitted', async () => {
    const calendar = 'other@group.calendar.google.com';
    const { state } = vendor.google;
    const baseline = await poll(null, { calendar_id: calendar });
    for (let i = 0; i < 560; i++) state.putEvent(calendar, { id: `more${String(i).padStart(4, '0')}`, summary: `More ${i}` });
    const first = await poll(baseline.cursor, { calendar_id: calendar });
    expect(first.events).toHaveLength(500);
    state.expirePageTokens();
    const before = eventRequests().length;
    const second = await poll(first.cursor, { calendar_id: calendar });
    const [refused, ...again] = eventRequests().slice(before);
    expect(refused.query.get('pageToken')).toBe(first.cursor.page_token);
    expect(again[0].query.has('pageToken')).toBe(false);
    expect(again.map((request) => request.query.get('syncToken'))).toEqual(again.map(() => first.cursor.sync_token));
    expect(second.events).toHaveLength(60);
    const ids = [...first.events, ...second.events].map((event) => event.id);
    expect(ids).toHaveLength(560);
    expect(new Set(ids).size).toBe(560);
  });

  it('an expired sync token (410) takes a new baseline; changes after it are seen', async () => {
    const { state } = vendor.google;
    const start = await poll(null);
    state.expireSyncTokens();
    state.putEvent(CALENDAR, { id: 'lostchange', summary: 'Made while the token expired' });
    const rebased = await poll(start.cursor);
    expect(rebased.events).toEqual([]);
    expect(rebased.cursor.sync_token).not.toBe(start.cursor.sync_token);
    expect(rebased.logs.some((line) => String(line.message).includes('sync token expired'))).toBe(true);

    state.putEvent(CALENDAR, { id: 'afterwards', summary: 'After the new baseline' });
    expect((await poll(rebased.cursor)).events.map((event) => event.id)).toEqual(['afterwards']);
  });

  it('a cursor of another calendar (the config changed) takes a baseline of the new one', async () => {
    const start = await poll(null);
    const moved = await poll(start.cursor, { calendar_id: 'busy@group.calendar.google.com' });
    expect(moved.events).toEqual([]);
    expect(moved.cursor.calendar_id).toBe('busy@group.calendar.google.com');
    expect(eventRequests().at(-1)!.query.has('syncToken')).toBe(false);
  });
});
