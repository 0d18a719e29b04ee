import { startTestKernel, type TestKernel } from '../../../core/testing';
import { PLUGINS, type Json } from './app-tables-helpers';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, role: 'serve' });
});
afterAll(() => kit?.stop());

describe('the tables app in the flow catalog', () => {
  it('is a builtin app with its triggers, actions and option lists, each input documented by its schema', async () => {
    const app = (await kit.api.get('/api/v1/flow/apps/tables').expect(200)).body.data;
    expect(app).toMatchObject({ uid: 'tables', name: 'Tables', category: 'builtin', requires_agent: false, auth: null });
    expect(app.triggers.map((trigger: Json) => trigger.key)).toEqual(['record_created', 'record_updated']);
    expect(app.actions.map((action: Json) => action.key)).toEqual(['insert_record', 'update_record', 'delete_record', 'find_records', 'aggregate']);
    expect(app.options.map((list: Json) => [list.kind, list.searchable])).toEqual([
      ['tables', true],
      ['columns', false],
      ['operators', false],
      ['operators_for_type', false],
      ['aggregates', false],
      ['order_directions', false],
    ]);

    const schemaOf = (key: string) => app.actions.find((action: Json) => action.key === key).input_schema;
    expect(schemaOf('insert_record')).toMatchObject({ required: ['table_id', 'values'], additionalProperties: false, properties: { table_id: { format: 'uuid' } } });
    expect(schemaOf('update_record').required).toEqual(['table_id', 'record_id', 'values']);
    expect(schemaOf('find_records').properties.limit).toMatchObject({ minimum: 1, maximum: 1000 });
    expect(schemaOf('aggregate').properties.aggregate.enum).toEqual(['count', 'sum', 'avg', 'min', 'max']);
    expect(app.triggers[1].input_schema.properties).toHaveProperty('columns');
    // Fields picked from an option list say which, and what the list depends on.
    const columns = { kind: 'columns', params: { table_id: '{{config.table_id}}' }, dependsOn: ['table_id'] };
    expect(schemaOf('find_records').properties.table_id['x-options']).toEqual({ kind: 'tables', params: {}, dependsOn: [] });
    expect(schemaOf('find_records').properties.filters.items.properties.column['x-options']).toEqual(columns);
    expect(schemaOf('find_records').properties.sort.items.properties.direction['x-options']).toEqual({ kind: 'order_directions', params: {}, dependsOn: [] });
    expect(schemaOf('aggregate').properties.group_by['x-options']).toEqual(columns);
    expect(app.triggers[1].input_schema.properties.columns).toMatchObject({ type: 'array', 'x-options': columns });
    expect(app.options.find((list: Json) => list.kind === 'columns').params_schema.required).toEqual(['table_id']);
  });
});
