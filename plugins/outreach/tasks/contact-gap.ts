import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutreachRule } from '../entities';
import type { Task } from '../entities/task.entity';
import { DUE_SLACK_MS } from './task-claim';

const MINUTE_MS = 60_000;

/**
 * A rule's `min_gap_minutes` is a calling policy: no two attempts on one contact under
 * that rule closer than the gap, whichever tasks they belong to (two campaigns with the
 * rule, a manual task beside a campaign's). The retries of one task keep their own
 * spacing (task-runner.ts); this is the gap between a contact's tasks.
 *
 * Returns when the task may run (the latest attempt start of the contact's other tasks
 * under the rule, plus the gap; the gap from now while another such attempt is being
 * made), or null when it may run now. `now` is the claim's database clock, the one
 * attempt starts are recorded on. Runs in the attempt's transaction, after the claim
 * locked the task.
 */
export async function contactGapHold(em: EntityManager, task: Pick<Task, 'uuid' | 'tenantUuid' | 'contactUuid'>, rule: Pick<OutreachRule, 'uuid' | 'minGapMinutes'>, now: Date): Promise<Date | null> {
  const gapMs = rule.minGapMinutes * MINUTE_MS;
  if (gapMs <= 0) return null;
  // Two workers may claim two tasks of the contact at the same instant; each would look
  // before the other's attempt start is committed, see none, and both would run. The
  // lock lets one look at a time, and holding it until the attempt commits means the
  // next one looks after that start is visible. Tried, not awaited: waiting would hold a
  // runner and its connection for as long as the holder's executor runs (a call may
  // take minutes), and the wait would end in a hold anyway. The holder's attempt started
  // before it took the lock, so the gap counted from this refusal covers it.
  const lock = await tryLockContactUnderRule(em, task.contactUuid, rule.uuid);
  if (!lock.locked) return new Date(lock.at.getTime() + gapMs);
  const latest = await latestOtherAttempt(em, task, rule.uuid);
  if (!latest) return null;
  const until = new Date(latest.getTime() + gapMs);
  // Within the slack a due message may arrive early with (task-claim.ts): a task brought back at `until` runs rather than being held again for a moment.
  return until.getTime() > now.getTime() + DUE_SLACK_MS ? until : null;
}

/**
 * Serializes the attempts on one contact under one rule, until the caller's transaction
 * ends. The key is derived from the contact's uuid (unique across tenants, so it names
 * the tenant's contact) and the rule's: attempts under another rule do not hold it up.
 * Says whether the lock was taken (re-entrant within one transaction), and when (the
 * database's clock).
 */
export async function tryLockContactUnderRule(em: EntityManager, contactUuid: string, ruleUuid: string): Promise<{ locked: boolean; at: Date }> {
  const [row] = await em
    .getConnection()
    .execute(
      'select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked, clock_timestamp() as at',
      [`outreach.contact-gap:${contactUuid}:${ruleUuid}`],
      'all',
      em.getTransactionContext(),
    );
  return { locked: row.locked === true, at: new Date(row.at) };
}

/** When the latest attempt on the contact under the rule started, among its other tasks (tasks_contact_rule_last_attempt_index). */
async function latestOtherAttempt(em: EntityManager, task: Pick<Task, 'uuid' | 'tenantUuid' | 'contactUuid'>, ruleUuid: string): Promise<Date | null> {
  const [row] = await em
    .getConnection()
    .execute(
      'select last_attempt_at from tasks where tenant_uuid = ? and contact_uuid = ? and rule_uuid = ? and last_attempt_at is not null and uuid <> ? ' +
        'order by last_attempt_at desc limit 1',
      [task.tenantUuid, task.contactUuid, ruleUuid, task.uuid],
      'all',
      em.getTransactionContext(),
    );
  return row ? new Date(row.last_attempt_at) : null;
}
