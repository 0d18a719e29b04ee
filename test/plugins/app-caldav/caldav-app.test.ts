import { caldavApp } from '../../../plugins/app-caldav';
import { flowAppProblems } from '../../../plugins/flows/app/flow-app-problems';
import { inputProblems } from '../../../plugins/flows/testing-kit';

describe('the caldav app definition', () => {
  it('passes the catalog’s boot checks (auth, option links, schemas, samples)', () => {
    expect(flowAppProblems([caldavApp], [])).toEqual([]);
  });

  it('is a connect app with a basic auth holding server_url, whose lists and inputs are those of a calendar app', () => {
    expect(caldavApp).toMatchObject({ uid: 'caldav', category: 'connect', auth: { type: 'basic' } });
    expect(Object.keys((caldavApp.auth!.schema as unknown as { properties: object }).properties)).toEqual(['username', 'password', 'server_url']);
    expect(caldavApp.options!.map((list) => list.kind)).toEqual(['calendars', 'events']);
    expect(caldavApp.actions!.map((action) => action.key)).toEqual(['create_event', 'update_event', 'delete_event', 'find_events', 'find_free_busy']);
  });

  it('refuses a step config with unknown members or bad values, by path', () => {
    const create = caldavApp.actions!.find((action) => action.key === 'create_event')!;
    const problems = inputProblems(create, { calendar_id: '/alice/work/', summary: 'x', start: 'soon', end: '2026-03-01T10:00:00Z', colour: 'red' });
    expect(Object.keys(problems).sort()).toEqual(['config.colour', 'config.start']);
  });
});
