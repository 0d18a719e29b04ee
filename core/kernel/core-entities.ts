import { DeadLetter, InboxRow, OutboxRow } from '../bus/bus-entities';
import { IdempotencyKey } from '../http/idempotency-key.entity';
import { RateBucketRow, TenantQuotaRow } from '../limits/limits.entities';
import { LlmUsage } from '../llm';
import { ApiToken } from '../tenancy/api-token.entity';
import { TenantDeletion } from '../tenancy/tenant-deletion.entity';
import { Tenant } from '../tenancy/tenant.entity';

/** The kernel's own entities, whose tables the kernel's migrations (core/migrations/) create. */
export const coreEntities = [Tenant, ApiToken, TenantDeletion, OutboxRow, InboxRow, DeadLetter, LlmUsage, IdempotencyKey, TenantQuotaRow, RateBucketRow];
