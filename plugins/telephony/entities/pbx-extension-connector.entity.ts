import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { NO_NORMALIZER, type NormalizerValue } from '../schemas/normalizer';

/**
 * An extension of a tenant's PBX that an agent answers and calls from: the agent
 * registers with the PBX's registrar as `pbx.username_extension`. `authPassword` is
 * sealed by the secrets service and never returned.
 */
@Entity({ tableName: 'pbx_extension_connectors' })
@Index({ name: 'pbx_extension_connectors_agent_index', properties: ['tenantUuid', 'agentUuid'] })
@Index({ name: 'pbx_extension_connectors_phone_number_index', properties: ['tenantUuid', 'phoneNumber'] })
export class PbxExtensionConnector extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  status!: 'active' | 'inactive';

  @Property({ type: 'text', nullable: true })
  phoneNumber: string | null = null;

  /** No foreign key into the agents plugin's table: a deleted agent is let go by its event. */
  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  @Property({ type: 'text' })
  connectionType!: 'udp' | 'tcp' | 'tls';

  @Property({ type: 'text' })
  setupMode!: 'inbound' | 'outbound' | 'both';

  @Property({ type: 'text' })
  registrarServer!: string;

  @Property({ type: 'integer' })
  port!: number;

  @Property({ type: 'text' })
  usernameExtension!: string;

  @Property({ type: 'json' })
  allowedIp: string[] & Opt = [];

  @Property({ type: 'boolean' })
  separateCredentials: boolean & Opt = false;

  @Property({ type: 'text', nullable: true })
  authUsername: string | null = null;

  /** Sealed (`sb1:...`); null: no password. */
  @Property({ type: 'text', nullable: true })
  authPassword: string | null = null;

  @Property({ type: 'json' })
  normalizer: NormalizerValue & Opt = { ...NO_NORMALIZER };
}
