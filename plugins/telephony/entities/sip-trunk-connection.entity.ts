import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { NO_NORMALIZER, type NormalizerValue } from '../schemas/normalizer';

/**
 * A SIP trunk at a carrier (Twilio Elastic SIP Trunking, Telnyx, an on-premises SBC)
 * whose numbers an agent answers and calls from. `authPassword` is sealed by the
 * secrets service and never returned.
 */
@Entity({ tableName: 'sip_trunk_connections' })
@Index({ name: 'sip_trunk_connections_agent_index', properties: ['tenantUuid', 'agentUuid'] })
export class SipTrunkConnection extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  status!: 'active' | 'inactive';

  /** No foreign key into the agents plugin's table: a deleted agent is let go by its event. */
  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  /** E.164 numbers, the main one first. */
  @Property({ type: 'json' })
  phoneNumbers: string[] & Opt = [];

  @Property({ type: 'text' })
  gateway!: string;

  @Property({ type: 'text', nullable: true })
  secondaryGateway: string | null = null;

  @Property({ type: 'integer' })
  port!: number;

  @Property({ type: 'text' })
  transport!: 'udp' | 'tcp' | 'tls';

  @Property({ type: 'text', nullable: true })
  authUsername: string | null = null;

  /** Sealed (`sb1:...`); null: no password. */
  @Property({ type: 'text', nullable: true })
  authPassword: string | null = null;

  @Property({ type: 'json' })
  allowedIps: string[] & Opt = [];

  @Property({ type: 'json' })
  codecs!: string[];

  @Property({ type: 'json' })
  normalizer: NormalizerValue & Opt = { ...NO_NORMALIZER };
}
