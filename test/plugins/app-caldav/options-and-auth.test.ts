import { connectionHttp } from '../../../plugins/flows/connections/connection-http';
import { ValidationError } from '../../../core';
import { captureLogger } from '../../../core/testing';
import { caldavApp } from '../../../plugins/app-caldav';
import { loadOptions, runAction } from '../../../plugins/flows/testing-kit';
import { VendorError } from '../../../plugins/flows';
import { connectionTo, dayFromNow, loopbackEgress, startRadicaleServer, type RadicaleServer } from './radicale-server';

let radicale: RadicaleServer;
const egress = loopbackEgress();
let work: string;
let home: string;

beforeAll(async () => {
  radicale = await startRadicaleServer({ users: { alice: 'alice-secret', bob: 'bob-secret' } });
  work = await radicale.makeCalendar('alice', 'work', 'Work');
  home = await radicale.makeCalendar('alice', 'home', 'Home & Family');
  await radicale.makeCalendar('bob', 'private', 'Bob private');
});
afterAll(async () => {
  await radicale?.close();
  await egress.close();
});

const alice = () => connectionTo(radicale, 'alice', 'alice-secret');
const options = (kind: string, params: Record<string, unknown> = {}, extra: { search?: string; cursor?: string; connection?: ReturnType<typeof alice> } = {}) =>
  loadOptions(caldavApp, kind, params, { egress, connection: extra.connection ?? alice(), search: extra.search ?? null, cursor: extra.cursor ?? null });

const event = (uid: string, summary: string, start: Date, minutes = 30) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${start.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`,
    `DTEND:${new Date(start.getTime() + minutes * 60_000).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`,
    `SUMMARY:${summary}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

describe('CalDAV discovery and the calendars list', () => {
  it('finds the user’s calendars from the server root through current-user-principal and calendar-home-set', async () => {
    const { result } = await options('calendars');
    expect(result).toEqual({ options: [{ label: 'Home & Family', value: home }, { label: 'Work', value: work }], nextCursor: null });
  });

  it('finds the same calendars when server_url is the calendar home itself', async () => {
    const { result } = await options('calendars', {}, { connection: connectionTo(radicale, 'alice', 'alice-secret', `${radicale.url}alice/`) });
    expect(result).toMatchObject({ options: [{ value: home }, { value: work }] });
  });

  it('filters the calendars by the user’s search, ignoring case', async () => {
    const { result } = await options('calendars', {}, { search: 'FAMILY' });
    expect(result).toEqual({ options: [{ label: 'Home & Family', value: home }], nextCursor: null });
  });

  it('shows another user only their own calendars', async () => {
    const { result } = await options('calendars', {}, { connection: connectionTo(radicale, 'bob', 'bob-secret') });
    expect(result).toEqual({ options: [{ label: 'Bob private', value: '/bob/private/' }], nextCursor: null });
  });

  it('answers a wrong password with a state that says to reconnect, not an error', async () => {
    const { result } = await options('calendars', {}, { connection: connectionTo(radicale, 'alice', 'wrong') });
    expect(result).toEqual({ state: 'unavailable', message: expect.stringMatching(/CalDAV server refused the connection's credentials .*401.*reconnect/) });
  });

  it('refuses params without the calendar of an events list (422 at params.calendar_id)', async () => {
    const failure = await options('events', {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidationError);
    expect((failure as ValidationError).errors).toHaveProperty(['params.calendar_id']);
  });
});

describe('the events list', () => {
  let paged: string;
  beforeAll(async () => {
    await radicale.putObject('alice', work, 'standup.ics', event('standup', 'Standup', dayFromNow(2, 9)));
    await radicale.putObject('alice', work, 'review.ics', event('review', 'Quarterly review', dayFromNow(1, 14)));
    await radicale.putObject('alice', work, 'old.ics', event('old', 'Long gone', dayFromNow(-90, 9)));
    paged = await radicale.makeCalendar('alice', 'busy', 'Busy');
    for (let index = 0; index < 53; index++) await radicale.putObject('alice', paged, `e${index}.ics`, event(`e${index}`, `Slot ${index}`, dayFromNow(1, 0.25 * index)));
  });

  it('lists the calendar’s events soonest first, labelled with their title and start, valued by their path', async () => {
    const { result } = await options('events', { calendar_id: work });
    const review = dayFromNow(1, 14).toISOString().slice(0, 16).replace('T', ' ');
    const standup = dayFromNow(2, 9).toISOString().slice(0, 16).replace('T', ' ');
    expect(result).toEqual({
      options: [
        { label: `Quarterly review · ${review} UTC`, value: `${work}review.ics` },
        { label: `Standup · ${standup} UTC`, value: `${work}standup.ics` },
      ],
      nextCursor: null,
    });
  });

  it('searches the titles on the server', async () => {
    const { result } = await options('events', { calendar_id: work }, { search: 'quarterly' });
    expect(result).toMatchObject({ options: [{ value: `${work}review.ics` }], nextCursor: null });
  });

  it('pages a long list with its cursor, each event once', async () => {
    const first = (await options('events', { calendar_id: paged })).result as { options: Array<{ label: string; value: string }>; nextCursor: string | null };
    expect(first.options).toHaveLength(50);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await options('events', { calendar_id: paged }, { cursor: first.nextCursor! })).result as typeof first;
    expect(second.nextCursor).toBeNull();
    const values = [...first.options, ...second.options].map((option) => option.value);
    expect(new Set(values).size).toBe(53);
    expect(first.options[0].label).toMatch(/^Slot 0 · /);
  });

  it('refuses a calendar that is not on the connection’s server (422 at params.calendar_id)', async () => {
    for (const calendarId of ['//evil.example/alice/work/', 'https://evil.example/alice/work/', 'work']) {
      const failure = await options('events', { calendar_id: calendarId }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ValidationError);
      expect((failure as ValidationError).errors).toHaveProperty(['params.calendar_id']);
    }
  });

  it('refuses a cursor it never answered (422 at cursor)', async () => {
    const failure = await options('events', { calendar_id: work }, { cursor: 'page-two' }).catch((error: unknown) => error);
    expect((failure as ValidationError).errors).toHaveProperty(['cursor']);
  });
});

describe('wrong credentials in a step', () => {
  it('fails an action with a VendorError that says to reconnect, without the password', async () => {
    const failure = await runAction(caldavApp, 'find_events', { calendar_id: work, from: dayFromNow(0).toISOString(), to: dayFromNow(3).toISOString() }, { egress, connection: connectionTo(radicale, 'alice', 'not-the-password') }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(VendorError);
    expect((failure as VendorError).status).toBe(401);
    expect((failure as VendorError).message).toMatch(/^The CalDAV server refused the connection's credentials while trying to search the calendar’s events \(401.*reconnect the app$/);
    expect((failure as VendorError).message).not.toContain('not-the-password');
  });
});

describe('the connection test (auth.test)', () => {
  // As the flows plugin runs it: `http` sends the credentials under test (Basic).
  const test = (credentials: { username: string; password: string; server_url: string }) =>
    caldavApp.auth!.test!(credentials as never, {
      tenant: { uuid: 'tenant', slug: 'acme', name: 'Acme' },
      egress,
      http: connectionHttp({ egress, auth: caldavApp.auth, connection: { uuid: 'new', label: 'new', credentials }, tokens: { refresh: () => Promise.reject(new Error('no refresh')) } }),
      logger: captureLogger().logger,
    });

  it('accepts a user name and password the server accepts', async () => {
    await expect(test({ username: 'alice', password: 'alice-secret', server_url: radicale.url })).resolves.toEqual({ valid: true });
  });

  it('refuses a wrong password with a message that says so', async () => {
    await expect(test({ username: 'alice', password: 'wrong', server_url: radicale.url })).resolves.toEqual({ valid: false, message: expect.stringMatching(/^The CalDAV server refused this user name and password \(401\)/) });
  });

  it('refuses a server that does not answer, naming it', async () => {
    const closed = new URL(radicale.url);
    closed.port = '1';
    await expect(test({ username: 'alice', password: 'alice-secret', server_url: closed.toString() })).resolves.toEqual({ valid: false, message: expect.stringMatching(/^The CalDAV server at server_url could not be reached/) });
  });

  it('refuses a server_url that is not a CalDAV server', async () => {
    const http = await import('node:http');
    const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = site.address() as import('node:net').AddressInfo;
      await expect(test({ username: 'alice', password: 'alice-secret', server_url: `http://127.0.0.1:${port}/` })).resolves.toEqual({
        valid: false,
        message: expect.stringMatching(/not a WebDAV multistatus.*server_url/),
      });
    } finally {
      site.close();
    }
  });
});
