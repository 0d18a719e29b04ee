import { startTestKernel, type TestKernel } from '../../../core/testing';
import { PLUGINS, action, addRecord, addStep, changeRecord, createFlow, createTable, executionsOf, liveFlow, recordsOf, settled, trigger, type Json } from './app-tables-helpers';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, config: { busPollIntervalMs: 200 } });
});
afterAll(() => kit?.stop());

const UNKNOWN = '0190d5c2-0000-7000-8000-0000000000ff';
const tickets = (name = 'Tickets') => createTable(kit.api, name, { title: 'text', status: 'text', priority: 'number' });
const undeploy = (flow: string) => kit.api.post(`/api/v1/flow/${flow}/undeploy`).expect(200);

/** Deploys a flow with only `first` as its trigger, expecting 422; its errors. */
async function refusedDeploy(first: Json): Promise<Json> {
  const flow = await createFlow(kit.api);
  await addStep(kit.api, flow, first);
  return (await kit.api.post(`/api/v1/flow/${flow}/deploy`).expect(422)).body.errors;
}

describe('record_created', () => {
  it('starts the flow with the event for each record added to its table, and not for another table’s', async () => {
    const watched = await tickets('Watched');
    const other = await tickets('Other');
    const flow = await liveFlow(kit.api, trigger('record_created', { table_id: watched.uuid }));
    await addRecord(kit.api, other.uuid, { title: 'Elsewhere' });
    const first = await addRecord(kit.api, watched.uuid, { title: 'Printer jam', priority: 2 });
    const second = await addRecord(kit.api, watched.uuid, { title: 'No coffee', priority: 1 });
    await settled(kit);

    const executions = await executionsOf(kit.api, flow);
    expect(executions.map((execution) => execution.trigger_event.record.uuid).sort()).toEqual([first.uuid, second.uuid].sort());
    const event = executions.find((execution) => execution.trigger_event.record.uuid === first.uuid)!.trigger_event;
    expect(event).toEqual({
      table_uuid: watched.uuid,
      table_name: 'Watched',
      record: { uuid: first.uuid, table_uuid: watched.uuid, values: { title: 'Printer jam', status: null, priority: 2 }, created_at: first.created_at, updated_at: first.updated_at },
    });
    await undeploy(flow);
  });

  it('does not start a flow once it is undeployed', async () => {
    const table = await tickets();
    const flow = await liveFlow(kit.api, trigger('record_created', { table_id: table.uuid }));
    await undeploy(flow);
    await addRecord(kit.api, table.uuid, { title: 'Unseen' });
    await settled(kit);
    expect(await executionsOf(kit.api, flow)).toEqual([]);
  });

  it('is not started by a record its own flow inserted into the table it watches', async () => {
    const table = await tickets('Echoes');
    const flow = await liveFlow(
      kit.api,
      trigger('record_created', { table_id: table.uuid }),
      action('insert_record', { table_id: table.uuid, values: { title: '{{step1.record.values.title}} (copy)' } }),
    );
    try {
      await addRecord(kit.api, table.uuid, { title: 'Original' });
      await settled(kit);
      const executions = await executionsOf(kit.api, flow);
      expect(executions).toHaveLength(1);
      expect(executions[0]).toMatchObject({ status: 'succeeded', trigger_event: { record: { values: { title: 'Original' } } } });
      expect((await recordsOf(kit.api, table.uuid)).map((record) => record.values.title)).toEqual(['Original', 'Original (copy)']);
    } finally {
      await undeploy(flow);
    }
  });

  it('another flow does see a record a flow inserted', async () => {
    const inbox = await tickets('Inbox');
    const archive = await tickets('Archive');
    const copier = await liveFlow(kit.api, trigger('record_created', { table_id: inbox.uuid }), action('insert_record', { table_id: archive.uuid, values: { title: '{{step1.record.values.title}}' } }));
    const watcher = await liveFlow(kit.api, trigger('record_created', { table_id: archive.uuid }));
    await addRecord(kit.api, inbox.uuid, { title: 'Forwarded' });
    await settled(kit);
    expect(await executionsOf(kit.api, copier)).toHaveLength(1);
    expect((await executionsOf(kit.api, watcher)).map((execution) => execution.trigger_event.record.values.title)).toEqual(['Forwarded']);
    await undeploy(copier);
    await undeploy(watcher);
  });

  it('refuses to deploy for a table that does not exist or is another workspace’s', async () => {
    const stranger = await kit.createTenant();
    const theirs = await createTable(stranger.api, 'Theirs', { title: 'text' });
    for (const table_id of [UNKNOWN, theirs.uuid]) {
      expect(await refusedDeploy(trigger('record_created', { table_id }))).toEqual({ 'config.table_id': ['is not a table of this workspace'] });
    }
  });
});

describe('record_updated', () => {
  it('starts the flow with the record afterwards and the columns that changed, only for its table', async () => {
    const table = await tickets();
    const other = await tickets('Other');
    const record = await addRecord(kit.api, table.uuid, { title: 'Printer jam', status: 'open' });
    const elsewhere = await addRecord(kit.api, other.uuid, { title: 'Elsewhere' });
    const flow = await liveFlow(kit.api, trigger('record_updated', { table_id: table.uuid }));
    await changeRecord(kit.api, other.uuid, elsewhere.uuid, { status: 'closed' });
    const updated = await changeRecord(kit.api, table.uuid, record.uuid, { status: 'closed', priority: 3 });
    await settled(kit);

    const executions = await executionsOf(kit.api, flow);
    expect(executions).toHaveLength(1);
    expect(executions[0].trigger_event).toEqual({
      table_uuid: table.uuid,
      table_name: 'Tickets',
      record: { ...updated, values: { title: 'Printer jam', status: 'closed', priority: 3 } },
      changed: expect.arrayContaining(['status', 'priority']),
    });
    expect(executions[0].trigger_event.changed).toHaveLength(2);
    await undeploy(flow);
  });

  it('with columns (by uuid or name), starts only when one of them changed', async () => {
    const table = await tickets();
    const record = await addRecord(kit.api, table.uuid, { title: 'Printer jam', status: 'open', priority: 1 });
    const byUuid = await liveFlow(kit.api, trigger('record_updated', { table_id: table.uuid, columns: [table.columns.status] }));
    const byName = await liveFlow(kit.api, trigger('record_updated', { table_id: table.uuid, columns: ['Priority', 'title'] }));
    await changeRecord(kit.api, table.uuid, record.uuid, { priority: 2 });
    await settled(kit);
    await changeRecord(kit.api, table.uuid, record.uuid, { status: 'closed' });
    await settled(kit);

    expect((await executionsOf(kit.api, byUuid)).map((execution) => execution.trigger_event.changed)).toEqual([['status']]);
    expect((await executionsOf(kit.api, byName)).map((execution) => execution.trigger_event.changed)).toEqual([['priority']]);
    await undeploy(byUuid);
    await undeploy(byName);
  });

  it('is not started by its own flow’s update of the record it reacts to', async () => {
    const table = await tickets();
    const record = await addRecord(kit.api, table.uuid, { title: 'Printer jam', priority: 1 });
    // Each run raises the priority: without the guard every run would start the next.
    const flow = await liveFlow(
      kit.api,
      trigger('record_updated', { table_id: table.uuid }),
      action('update_record', { table_id: table.uuid, record_id: '{{step1.record.uuid}}', values: { status: 'triaged', title: '{{step1.record.values.title}}!' } }),
    );
    try {
      await changeRecord(kit.api, table.uuid, record.uuid, { priority: 5 });
      await settled(kit);
      const executions = await executionsOf(kit.api, flow);
      expect(executions).toHaveLength(1);
      expect(executions[0].steps[0]).toMatchObject({ status: 'succeeded', response: { values: { title: 'Printer jam!', status: 'triaged', priority: 5 } } });
    } finally {
      await undeploy(flow);
    }
  });

  it('refuses to deploy for columns the table does not have', async () => {
    const table = await tickets();
    expect(await refusedDeploy(trigger('record_updated', { table_id: table.uuid, columns: ['status', 'owner', UNKNOWN] }))).toEqual({
      'config.columns.1': ['is not a column of the table "Tickets"'],
      'config.columns.2': ['is not a column of the table "Tickets"'],
    });
  });
});
