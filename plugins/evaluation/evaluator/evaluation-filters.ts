import type { FilterQuery } from '@mikro-orm/postgresql';
import { Type, Uuid, ValidationError, type FieldErrors } from '../../../core';
import { ChannelSchema, type Channel } from '../../conversations';
import type { Evaluation, EvaluationStatus } from '../entities';
import type { AnalyzerName } from '../settings/evaluate-values';
import { AnalyzerNameSchema, EvaluationStatusSchema } from './evaluation-view';
import { normalizeLabel } from './evaluation-outcome';

const ISO_8601 = /^\d{4}-\d\d-\d\d(?:T\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:?\d\d)?)?$/i;
const NOT_A_TIME = 'must be an ISO 8601 date or date-time, e.g. 2025-01-31 or 2025-01-31T09:00:00Z';

/** The filters the list and the analytics share: whose, where, when (`from <= created_at < to`). */
export const RangeFilterQuery = {
  agent_uuid: Type.Optional(Uuid({ description: 'Only this agent’s sessions' })),
  channel: Type.Optional(ChannelSchema),
  from: Type.Optional(Type.String({ description: 'Evaluated at or after this time (ISO 8601; a date is midnight UTC)' })),
  to: Type.Optional(Type.String({ description: 'Evaluated before this time (ISO 8601; a date is midnight UTC)' })),
};

/** The list's further filters. */
export const ResultFilterQuery = {
  analyzer: Type.Optional(AnalyzerNameSchema),
  label: Type.Optional(Type.String({ description: 'With `analyzer`: only records where that analyzer gave this label (case-insensitive)' })),
  success: Type.Optional(Type.Boolean({ description: 'Only records with this success verdict' })),
  status: Type.Optional(EvaluationStatusSchema),
};

export interface EvaluationFilter {
  agentUuid?: string;
  channel?: Channel;
  from?: Date;
  to?: Date;
  analyzer?: AnalyzerName;
  label?: string;
  success?: boolean;
  status?: EvaluationStatus;
}

interface FilterQueryValues {
  agent_uuid?: string;
  channel?: string;
  from?: string;
  to?: string;
  analyzer?: string;
  label?: string;
  success?: boolean;
  status?: string;
}

/** A time of the query: ISO 8601, UTC when it names no offset. */
function parseTime(value: string): Date | null {
  if (!ISO_8601.test(value)) return null;
  const zoned = /T/i.test(value) && !/(?:Z|[+-]\d\d:?\d\d)$/i.test(value) ? `${value}Z` : value;
  const time = new Date(zoned);
  return Number.isNaN(time.getTime()) ? null : time;
}

/** The query's filters, checked together: every problem comes back in one 422. */
export function parseFilter(query: FilterQueryValues): EvaluationFilter {
  const errors: FieldErrors = {};
  const from = query.from === undefined ? undefined : parseTime(query.from);
  const to = query.to === undefined ? undefined : parseTime(query.to);
  if (from === null) errors.from = [NOT_A_TIME];
  if (to === null) errors.to = [NOT_A_TIME];
  if (query.analyzer !== undefined && query.label === undefined) errors.label = ['is required with analyzer'];
  if (query.label !== undefined && query.analyzer === undefined) errors.analyzer = ['is required with label'];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return {
    agentUuid: query.agent_uuid,
    channel: query.channel as Channel | undefined,
    from: from ?? undefined,
    to: to ?? undefined,
    analyzer: query.analyzer as AnalyzerName | undefined,
    label: query.label === undefined ? undefined : normalizeLabel(query.label),
    success: query.success,
    status: query.status as EvaluationStatus | undefined,
  };
}

/** The filter as an ORM condition (the tenant filter adds the tenant). */
export function ormWhere(filter: EvaluationFilter): FilterQuery<Evaluation> {
  const where: Record<string, unknown> = {};
  if (filter.agentUuid !== undefined) where.agentUuid = filter.agentUuid;
  if (filter.channel !== undefined) where.channel = filter.channel;
  if (filter.from !== undefined || filter.to !== undefined) {
    where.createdAt = { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lt: filter.to } : {}) };
  }
  // A JSON property query: `results -> '<analyzer>' ->> 'label' = ?`.
  if (filter.analyzer !== undefined && filter.label !== undefined) where.results = { [filter.analyzer]: { label: filter.label } };
  if (filter.success !== undefined) where.success = filter.success;
  if (filter.status !== undefined) where.status = filter.status;
  return where as FilterQuery<Evaluation>;
}

/** The range filter as SQL over `evaluations` (raw SQL passes no tenant filter: the tenant is its first condition). */
export function sqlWhere(tenantUuid: string, filter: EvaluationFilter): { sql: string; params: unknown[] } {
  const conditions = ['"tenant_uuid" = ?'];
  const params: unknown[] = [tenantUuid];
  const add = (condition: string, value: unknown) => {
    conditions.push(condition);
    params.push(value);
  };
  if (filter.agentUuid !== undefined) add('"agent_uuid" = ?', filter.agentUuid);
  if (filter.channel !== undefined) add('"channel" = ?', filter.channel);
  if (filter.from !== undefined) add('"created_at" >= ?', filter.from);
  if (filter.to !== undefined) add('"created_at" < ?', filter.to);
  return { sql: conditions.join(' and '), params };
}
