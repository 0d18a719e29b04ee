import { ConflictError, SecretDecryptionError, defineSecretColumn, type SecretsService } from '../../../core';
import type { Campaign } from '../entities';
import { taskSecretColumn } from '../tasks/task-secret';

/**
 * A campaign's write-only `task_data.secret`, which its webhook tasks sign with: kept out
 * of `task_data`, sealed for the tenant in `campaigns.webhook_secret` (declared for
 * `switchboard secrets rotate`). `entity` and `field` are bound into every stored value:
 * never change them.
 */
export const campaignSecretColumn = defineSecretColumn({ table: 'campaigns', column: 'webhook_secret', entity: 'outreach_campaign', field: 'webhook_secret' });

/** Why a campaign cannot make its tasks: its secret no longer opens. */
export const unreadableSecret = (reason: string) =>
  `Campaign’s webhook secret cannot be decrypted (${reason}: it was encrypted under a key this installation no longer holds, or altered); send task_data.secret again`;

/**
 * The campaign's secret sealed again for its tasks, or null when it has none. One value
 * serves every task of a batch: a sealed value is bound to the tenant and the column,
 * not to a row.
 *
 * A secret that does not open (sealed under a key since dropped from SECRETS_KEY, or
 * altered) will not open on a retry either, so it is a 409 naming the way out rather
 * than a 500: the campaign's tasks cannot be made until its secret is sent again.
 */
export function taskSecretOf(secrets: SecretsService, campaign: Pick<Campaign, 'tenantUuid' | 'webhookSecret'>): string | null {
  if (campaign.webhookSecret === null) return null;
  let plaintext: string;
  try {
    plaintext = secrets.decrypt(campaign.webhookSecret, campaignSecretColumn.context(campaign.tenantUuid));
  } catch (error) {
    if (error instanceof SecretDecryptionError) throw new ConflictError(unreadableSecret(error.reason));
    throw error;
  }
  return secrets.encrypt(plaintext, taskSecretColumn.context(campaign.tenantUuid));
}
