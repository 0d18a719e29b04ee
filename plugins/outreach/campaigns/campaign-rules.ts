import type { EntityManager } from '@mikro-orm/postgresql';
import { newUuid, type FieldErrors } from '../../../core';
import type { OutreachRule } from '../entities';
import { run } from './sql';

/**
 * Problems at `rule_uuids.<i>` for the uuids that are not rules of this tenant. The
 * rules found are held `FOR KEY SHARE` until the transaction ends, which a rule's
 * delete (`FOR UPDATE`) waits for: taken before the campaign's lock, so that a rule
 * delete (rule, then its campaigns) and an attach (rules, then the campaign) never
 * hold what the other waits for.
 */
export async function checkRuleUuids(em: EntityManager, tenantUuid: string, ruleUuids: readonly string[]): Promise<FieldErrors> {
  if (ruleUuids.length === 0) return {};
  const rows = await run<{ uuid: string }>(em, 'select uuid from outreach_rules where tenant_uuid = ? and uuid = any(array[?]::uuid[]) for key share', [
    tenantUuid,
    [...ruleUuids],
  ]);
  const known = new Set(rows.map((row) => row.uuid));
  const problems: FieldErrors = {};
  ruleUuids.forEach((uuid, index) => {
    if (!known.has(uuid)) problems[`rule_uuids.${index}`] = ['is not a rule of this tenant'];
  });
  return problems;
}

/**
 * Replaces the campaign's rules with these, in this order: the rows are written in
 * order and their time-ordered uuids keep it (`order by uuid` reads it back).
 */
export async function setCampaignRules(em: EntityManager, tenantUuid: string, campaignUuid: string, ruleUuids: readonly string[]): Promise<void> {
  await run(em, 'delete from campaign_rules where tenant_uuid = ? and campaign_uuid = ?', [tenantUuid, campaignUuid]);
  if (ruleUuids.length === 0) return;
  const now = new Date();
  await run(
    em,
    'insert into campaign_rules (uuid, tenant_uuid, created_at, updated_at, campaign_uuid, rule_uuid) ' +
      'select x.uuid, ?, ?::timestamptz, ?::timestamptz, ?, x.rule_uuid from jsonb_to_recordset(?::jsonb) as x(uuid uuid, rule_uuid uuid)',
    [tenantUuid, now, now, campaignUuid, JSON.stringify(ruleUuids.map((ruleUuid) => ({ uuid: newUuid(), rule_uuid: ruleUuid })))],
  );
}

/** The rule a campaign's new tasks follow: its first active rule, in attachment order; null when it has none (tasks may run any time). */
export async function governingRule(em: EntityManager, tenantUuid: string, campaignUuid: string): Promise<Pick<OutreachRule, 'uuid'> | null> {
  const [row] = await run<{ uuid: string }>(
    em,
    'select r.uuid from campaign_rules cr join outreach_rules r on r.uuid = cr.rule_uuid ' +
      'where cr.tenant_uuid = ? and cr.campaign_uuid = ? and r.is_active order by cr.uuid limit 1',
    [tenantUuid, campaignUuid],
  );
  return row ?? null;
}
