import {
  ConflictError,
  NotFoundError,
  PageQuery,
  ResourceId,
  SuccessEnvelope,
  Type,
  Uuid,
  defineRoute,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type BusService,
} from '../../../core';
import type { ConversationReader } from '../../conversations';
import { Evaluation } from '../entities';
import { RERUN_TOPIC } from '../topics';
import type { EvaluateRequest } from './evaluate-session';
import { RangeFilterQuery, ResultFilterQuery, ormWhere, parseFilter } from './evaluation-filters';
import { EvaluationSchema, evaluationJson } from './evaluation-view';

const tags = ['evaluation'];
export const SESSION_NOT_FOUND = 'Session not found';
export const NOT_EVALUATED = 'Session has not been evaluated';
export const SESSION_OPEN = 'Session is still open';

/** A session that has an evaluation record (what the one-evaluation route needs to answer 200). */
const EvaluatedSessionParams = Type.Object({ uuid: ResourceId('evaluation.evaluated-session', 'The session’s uuid') });
const SessionParams = Type.Object({ uuid: ResourceId('conversations.session', 'The session’s uuid') });

export interface EvaluationRoutesDeps {
  bus: BusService;
  conversations: ConversationReader;
}

/** `GET /sessions/{uuid}/evaluation`, `GET /evaluations`, `POST /sessions/{uuid}/evaluation/rerun`. */
export const evaluationRoutes = (deps: EvaluationRoutesDeps): AnyRoute[] => [readEvaluation(deps.conversations), listEvaluations, rerunEvaluation(deps)];

const readEvaluation = (conversations: ConversationReader) =>
  readRoute({
    path: '/api/v1/sessions/:uuid/evaluation',
    summary: 'Read a session’s evaluation',
    description:
      'The verdicts of the analyzers that ran on the closed session, its success verdict and summary, and what the run cost. ' +
      `An unknown session answers 404 "${SESSION_NOT_FOUND}"; a session without a record (not closed or not evaluated yet, ` +
      `shorter than the minimum, or its settings not active) 404 "${NOT_EVALUATED}".`,
    tags,
    params: EvaluatedSessionParams,
    resource: EvaluationSchema,
    read: async ({ params, em }) => {
      const evaluation = await em.findOne(Evaluation, { sessionUuid: params.uuid });
      if (evaluation) return evaluationJson(evaluation);
      if (!(await conversations.session(params.uuid))) throw new NotFoundError(SESSION_NOT_FOUND);
      throw new NotFoundError(NOT_EVALUATED);
    },
  });

const listEvaluations = listRoute({
  path: '/api/v1/evaluations',
  summary: 'List evaluation records, newest first',
  description:
    'Filters combine: `agent_uuid`, `channel`, `from <= created_at < to` (ISO 8601), `analyzer` with `label` (both or neither; ' +
    'labels are compared lowercased), `success` (`true` or `false`) and `status`.',
  tags,
  query: PageQuery({ ...RangeFilterQuery, ...ResultFilterQuery }),
  errors: [422],
  item: EvaluationSchema,
  page: async ({ query, em }) => {
    const [rows, total] = await em.findAndCount(Evaluation, ormWhere(parseFilter(query)), {
      orderBy: { createdAt: 'desc', uuid: 'desc' },
      ...pageWindow(query),
    });
    return [rows.map(evaluationJson), total];
  },
});

const rerunEvaluation = ({ bus, conversations }: EvaluationRoutesDeps) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/sessions/:uuid/evaluation/rerun',
    summary: 'Evaluate a closed session again',
    description:
      'Queues a new evaluation with the settings in effect now; when it runs, it replaces the session’s record (same uuid, `runs` one more). ' +
      `An unknown session answers 404; an open one 409 "${SESSION_OPEN}". Reruns queued before the first one ran are one run.`,
    tags,
    params: SessionParams,
    status: 202,
    errors: [404, 409],
    response: SuccessEnvelope(Type.Object({ session_uuid: Uuid(), queued: Type.Boolean() })),
    handler: async ({ params }) => {
      const session = await conversations.session(params.uuid);
      if (!session) throw new NotFoundError(SESSION_NOT_FOUND);
      if (session.status !== 'closed') throw new ConflictError(SESSION_OPEN);
      await bus.publish(RERUN_TOPIC, { session_uuid: session.uuid } satisfies EvaluateRequest, { key: session.uuid });
      return { success: true, message: 'Evaluation queued', data: { session_uuid: session.uuid, queued: true } };
    },
  });
