import { waitFor } from '../../../core/testing';
import { seedRecord } from '../../plugins/app-zoho-crm/zoho-server';
import { useConnectAppsInstall } from './connect-apps-install';

/**
 * Issue 25's "done when": a flow "CRM record created -> create calendar event -> append
 * sheet row" runs end to end against local vendor servers, each app connected through
 * its OAuth dance over the API. The trigger polls Zoho; the worker is stopped and another
 * started between two records, and each record starts exactly one execution.
 */
const setup = useConnectAppsInstall();

async function step(flow: string, body: Record<string, unknown>): Promise<void> {
  const res = await setup.install.api.api.post(`/api/v1/flow/${flow}/steps`).send(body);
  if (res.status !== 201) throw new Error(`step refused: ${res.status} ${JSON.stringify(res.body)}`);
}

const executions = (flow: string) => setup.install.sql('select uuid, status, error from flow_executions where flow_uuid = ? order by created_at', [flow]);
const revision = async (version: string): Promise<number> => (await setup.install.sql('select revision from flow_trigger_cursors where version_uuid = ?', [version]))[0]?.revision ?? 0;

it('CRM record created -> calendar event -> sheet row, once per record across a worker restart', async () => {
  const { api, zoho, calendar, sheets, accounts } = setup.install;
  // Every bus message written from here on is copied aside, to look for credentials in them at the end.
  await setup.install.sql('create table e2e_bus_copy (topic text, payload jsonb, headers jsonb)');
  await setup.install.sql(
    'create function e2e_copy_bus() returns trigger language plpgsql as $$ begin insert into e2e_bus_copy values (new.topic, new.payload, new.headers); return new; end $$',
  );
  await setup.install.sql('create trigger e2e_copy_bus after insert on bus_outbox for each row execute function e2e_copy_bus()');
  const spreadsheet = sheets.addSpreadsheet('Leads', { Sheet1: [['Name', 'Email', 'Event']] });
  const connections = {
    zoho: await setup.install.connect('zoho_crm', accounts.zoho),
    calendar: await setup.install.connect('google_calendar', accounts.calendar),
    sheets: await setup.install.connect('google_sheets', accounts.sheets),
  };

  const flow = (await api.api.post('/api/v1/flow').send({ name: 'New lead: call and log' }).expect(201)).body.data.uuid;
  await step(flow, { app_uid: 'zoho_crm', trigger_key: 'record_created_or_updated', app_connection_uuid: connections.zoho, config: { module: 'Leads' } });
  await step(flow, {
    app_uid: 'google_calendar',
    action_key: 'create_event',
    app_connection_uuid: connections.calendar,
    config: { calendar_id: 'sales@example.com', summary: 'Call {{step1.Last_Name}}', start: '2026-12-01T10:00:00+00:00', end: '2026-12-01T10:30:00+00:00', description: '{{step1.Email}}' },
  });
  await step(flow, {
    app_uid: 'google_sheets',
    action_key: 'add_row',
    app_connection_uuid: connections.sheets,
    config: { spreadsheet_id: spreadsheet.id, worksheet_title: 'Sheet1', values: { Name: '{{step1.Last_Name}}', Email: '{{step1.Email}}', Event: '{{step2.id}}' } },
  });
  const version = (await api.api.post(`/api/v1/flow/${flow}/deploy`).expect(200)).body.data.live_version.uuid;

  // The first poll takes a baseline: records from before the flow was live start nothing.
  await waitFor(() => revision(version), (n) => n >= 1, 90_000);
  seedRecord(zoho.state, 'Leads', { Last_Name: 'Lovelace', Email: 'ada@example.com' });
  await waitFor(() => executions(flow), (rows) => rows.length === 1 && rows[0].status === 'succeeded', 90_000);

  // The worker goes away; a record arrives while none runs; another worker takes over from the stored cursor.
  await setup.worker.stop();
  seedRecord(zoho.state, 'Leads', { Last_Name: 'Hopper', Email: 'grace@example.com' });
  setup.worker = await setup.install.startWorker('worker-two');
  await waitFor(() => executions(flow), (rows) => rows.length === 2 && rows.every((row) => row.status === 'succeeded'), 90_000);
  // A few more polls: nothing fires twice.
  const polled = await revision(version);
  await waitFor(() => revision(version), (n) => n >= polled + 3, 90_000);

  const runs = await executions(flow);
  expect(runs.map((row) => row.status)).toEqual(['succeeded', 'succeeded']);
  const events = [...calendar.state.calendars.get('sales@example.com')!.events.keys()].map((id) => calendar.state.eventOf('sales@example.com', id)!);
  expect(events.map((event) => [event.summary, event.description])).toEqual([
    ['Call Lovelace', 'ada@example.com'],
    ['Call Hopper', 'grace@example.com'],
  ]);
  expect(sheets.rowsOf(spreadsheet.id, 'Sheet1')).toEqual([
    ['Name', 'Email', 'Event'],
    ['Lovelace', 'ada@example.com', events[0].id],
    ['Hopper', 'grace@example.com', events[1].id],
  ]);
  // Tokens stay inside Switchboard: none in an execution's recorded steps, nor in any log line.
  const recorded = JSON.stringify(await setup.install.sql('select request, response, error from flow_execution_steps where execution_uuid in (?, ?)', runs.map((row) => row.uuid)));
  const logs = JSON.stringify([api.logs, setup.worker.logs]);
  const messages = await setup.install.sql('select topic, payload::text, headers::text from e2e_bus_copy');
  // The copy saw the flow's messages (polls, segments): it would have seen a token in one.
  expect(messages.map((row) => row.topic)).toEqual(expect.arrayContaining(['flows.trigger.poll', 'flows.execution.run']));
  for (const text of [recorded, logs, JSON.stringify(messages)]) expect(text).not.toMatch(/access-[0-9a-f]{24}|refresh-[0-9a-f]{24}/);
}, 300_000);
