import type { Kernel } from '../kernel/kernel';
import { deletionJson } from '../tenancy/admin-routes';
import { TenantDeletionJob } from '../tenancy/tenant-deletion';
import { TenantLifecycle } from '../tenancy/tenant-lifecycle';

/**
 * `tenant delete <slug> [--wait]`: the tenant answers 404 at once everywhere; its data
 * is deleted by a worker in the background, or, with --wait, by this process before it
 * prints the finished job (so it works when no worker runs).
 */
export async function deleteTenant(kernel: Kernel, slug: string, wait: boolean): Promise<{ deletion: ReturnType<typeof deletionJson> }> {
  const logger = kernel.logger.child({ component: 'tenancy' });
  const lifecycle = new TenantLifecycle(kernel.orm, kernel.tenants, kernel.bus.outbox, logger);
  let deletion = await lifecycle.requestDeletion(slug);
  if (wait && deletion.status !== 'done') {
    await new TenantDeletionJob(kernel.orm, logger).runNow({ deletion_uuid: deletion.uuid, tenant_uuid: deletion.tenantUuid });
    deletion = await lifecycle.findDeletion(deletion.uuid);
  }
  return { deletion: deletionJson(deletion) };
}
