import type { OutreachRule } from '../entities';
import type { RuleJson } from './rule-schemas';

export const ruleJson = (rule: OutreachRule): RuleJson => ({
  uuid: rule.uuid,
  name: rule.name,
  weekdays: rule.weekdays,
  start_time: rule.startTime,
  end_time: rule.endTime,
  timezone: rule.timezone,
  max_attempts: rule.maxAttempts,
  min_gap_minutes: rule.minGapMinutes,
  channel: rule.channel as RuleJson['channel'],
  is_active: rule.isActive,
  created_at: rule.createdAt.toISOString(),
  updated_at: rule.updatedAt.toISOString(),
});
