import { SuccessEnvelope, Type, Uuid, defineRoute, type HttpService, type Static } from '../../../core';
import { RangeFilterQuery, parseFilter, sqlWhere } from './evaluation-filters';

const Rate = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'true / (true + false); null when no verdict was given' });
const Counters = {
  sessions_evaluated: Type.Integer(),
  success_rate: Rate,
  llm_calls: Type.Integer(),
  tokens: Type.Integer(),
};

export const EvaluationAnalyticsSchema = Type.Object({
  sessions_evaluated: Type.Integer({ description: 'Evaluation records (one per session)' }),
  success: Type.Object(
    { true: Type.Integer(), false: Type.Integer(), unknown: Type.Integer({ description: 'No verdict: not asked, no prompt, or failed' }), rate: Rate },
    { description: 'The success verdicts' },
  ),
  llm_calls: Type.Integer({ description: 'Model calls of the last run of each record' }),
  tokens: Type.Integer({ description: 'Tokens the model reported for them' }),
  analyzers: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
    description: 'Per analyzer, the number of sessions per label (failed analyzers, which have no label, are not counted)',
  }),
  by_agent: Type.Array(Type.Object({ agent_uuid: Uuid(), ...Counters }), { description: 'Most evaluated agents first' }),
  by_day: Type.Array(Type.Object({ day: Type.String({ format: 'date', description: 'YYYY-MM-DD, UTC' }), ...Counters }), { description: 'Oldest day first; days without records are absent' }),
});
export type EvaluationAnalytics = Static<typeof EvaluationAnalyticsSchema>;

// Per-group counters, and the success rate over the verdicts given (true and false, not the unknown).
const COUNTERS = `count(*) as sessions_evaluated,
      (count(*) filter (where success))::float8 / nullif(count(*) filter (where success is not null), 0) as success_rate,
      coalesce(sum(llm_calls), 0) as llm_calls, coalesce(sum(tokens), 0) as tokens`;

/**
 * One statement: PostgreSQL groups and counts (labels by `jsonb_each` over `results`)
 * and builds the answer as JSON, so the cost does not grow with the rows read back.
 */
const analyticsSql = (where: string) => `
  with filtered as (select agent_uuid, created_at, success, results, llm_calls, tokens from evaluations where ${where}),
  totals as (
    select count(*) as sessions_evaluated,
      count(*) filter (where success) as true_count,
      count(*) filter (where not success) as false_count,
      count(*) filter (where success is null) as unknown_count,
      coalesce(sum(llm_calls), 0) as llm_calls, coalesce(sum(tokens), 0) as tokens
    from filtered
  ),
  labels as (
    select result.key as analyzer, result.value ->> 'label' as label, count(*) as sessions
    from filtered, jsonb_each(filtered.results) as result
    where result.value ->> 'label' is not null
    group by 1, 2
  ),
  analyzers as (select analyzer, json_object_agg(label, sessions order by label) as labels from labels group by analyzer),
  agents as (select agent_uuid, ${COUNTERS} from filtered group by agent_uuid),
  days as (select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, ${COUNTERS} from filtered group by 1)
  select json_build_object(
    'sessions_evaluated', totals.sessions_evaluated,
    'success', json_build_object(
      'true', totals.true_count, 'false', totals.false_count, 'unknown', totals.unknown_count,
      'rate', totals.true_count::float8 / nullif(totals.true_count + totals.false_count, 0)),
    'llm_calls', totals.llm_calls,
    'tokens', totals.tokens,
    'analyzers', coalesce((select json_object_agg(analyzer, labels order by analyzer) from analyzers), '{}'::json),
    'by_agent', coalesce((select json_agg(agents order by sessions_evaluated desc, agent_uuid) from agents), '[]'::json),
    'by_day', coalesce((select json_agg(days order by day) from days), '[]'::json)
  ) as data
  from totals`;

/** `GET /analytics/evaluations`: the records of a period, aggregated. */
export function registerAnalyticsRoute(http: HttpService): void {
  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/analytics/evaluations',
      summary: 'Aggregate evaluation records',
      description:
        'Over the records matching the filters (`agent_uuid`, `channel`, `from <= created_at < to` in ISO 8601): sessions evaluated, ' +
        'success verdicts and rate, model calls and tokens, the sessions per label of each analyzer, and the same counters by agent and by day (UTC).',
      tags: ['evaluation'],
      query: Type.Object(RangeFilterQuery, { additionalProperties: false }),
      errors: [422],
      response: SuccessEnvelope(EvaluationAnalyticsSchema),
      handler: async ({ query, em, tenant }) => {
        const { sql, params } = sqlWhere(tenant.uuid, parseFilter(query));
        const [row]: Array<{ data: EvaluationAnalytics }> = await em.getConnection().execute(analyticsSql(sql), params, 'all', em.getTransactionContext());
        return { success: true, message: 'Evaluation analytics', data: row.data };
      },
    }),
  );
}
