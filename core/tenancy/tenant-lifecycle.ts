import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../http/http-errors';
import { releaseHeldMessages } from '../bus/held-messages';
import type { OutboxStore } from '../bus/outbox-store';
import type { Logger } from '../logging/logger';
import { TENANT_DELETION_TOPIC, type TenantDeletionMessage } from './tenant-deletion';
import { TenantDeletion } from './tenant-deletion.entity';
import type { TenantDirectory } from './tenant-directory';
import { Tenant } from './tenant.entity';

export interface TenantPatch {
  name?: string;
  status?: 'active' | 'suspended';
}

/** A change to a tenant inside the PATCH's transaction (e.g. its quotas), run after the tenant's own members are set. */
export type TenantPatchExtension = (em: EntityManager, tenant: Tenant) => Promise<void>;

/**
 * Suspension, reactivation and deletion of tenants. A change of status is announced on
 * the auth channel in the same transaction, so it holds in every process from the
 * next request (each drops its cached tenant on the NOTIFY, sent at commit).
 */
export class TenantLifecycle {
  constructor(
    private readonly orm: MikroORM,
    private readonly directory: TenantDirectory,
    private readonly outbox: OutboxStore,
    private readonly logger: Logger,
  ) {}

  /** The tenant as the admin API shows it, being deleted or not. */
  async find(slug: string): Promise<Tenant> {
    const tenant = await this.orm.em.fork().findOne(Tenant, { slug });
    if (!tenant) throw new NotFoundError(`Tenant "${slug}" not found`);
    return tenant;
  }

  /**
   * Renames, suspends or reactivates a tenant. Reactivating releases the bus messages
   * held while it was suspended: they are due at once rather than at their next look.
   */
  async update(slug: string, patch: TenantPatch, extension?: TenantPatchExtension): Promise<Tenant> {
    let released = 0;
    const tenant = await this.orm.em.fork().transactional(async (tx) => {
      const found = await tx.findOne(Tenant, { slug }, { lockMode: LockMode.PESSIMISTIC_WRITE } /* one change of status at a time */);
      if (!found) throw new NotFoundError(`Tenant "${slug}" not found`);
      if (found.status === 'deleting') throw new ConflictError(`Tenant "${slug}" is being deleted`);
      const before = found.status;
      if (patch.name !== undefined) found.name = patch.name;
      if (patch.status !== undefined) found.status = patch.status;
      await extension?.(tx, found);
      await tx.flush();
      if (found.status !== before || patch.name !== undefined) await this.directory.announceTenant(tx, found.uuid);
      if (before === 'suspended' && found.status === 'active') released = await releaseHeldMessages(tx, found.uuid);
      return found;
    });
    this.directory.forgetTenant(tenant.uuid);
    if (released > 0) {
      this.logger.info('held messages of a reactivated tenant released', { tenant: slug, messages: released });
      await this.outbox.notifyRelays().catch(() => {}); // the relays look at their next poll otherwise
    }
    return tenant;
  }

  /**
   * Marks the tenant as being deleted (404 for its routes and tokens from now on, in
   * every process) and starts the deletion job; a tenant being deleted already answers
   * with its running job.
   */
  async requestDeletion(slug: string): Promise<TenantDeletion> {
    const deletion = await this.orm.em.fork().transactional(async (tx) => {
      const tenant = await tx.findOne(Tenant, { slug }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!tenant) throw new NotFoundError(`Tenant "${slug}" not found`);
      if (tenant.status === 'deleting') {
        const running = await tx.findOne(TenantDeletion, { tenantUuid: tenant.uuid }, { orderBy: { createdAt: 'desc' } });
        if (running) return running;
      }
      tenant.status = 'deleting';
      const created = tx.create(TenantDeletion, { tenantUuid: tenant.uuid, tenantSlug: tenant.slug });
      await tx.flush();
      await this.directory.announceTenant(tx, tenant.uuid);
      // Without a tenant: the message of a tenant being deleted would find no tenant.
      await this.outbox.insert(tx, {
        topic: TENANT_DELETION_TOPIC,
        payload: { deletion_uuid: created.uuid, tenant_uuid: tenant.uuid } satisfies TenantDeletionMessage,
        tenantUuid: null,
      });
      return created;
    });
    this.directory.forgetTenant(deletion.tenantUuid);
    return deletion;
  }

  async findDeletion(uuid: string): Promise<TenantDeletion> {
    const deletion = await this.orm.em.fork().findOne(TenantDeletion, { uuid });
    if (!deletion) throw new NotFoundError('Tenant deletion not found');
    return deletion;
  }
}
