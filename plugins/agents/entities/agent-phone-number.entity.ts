import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';

export interface PhoneCapabilities {
  call: boolean;
  sms: boolean;
  chatapp: boolean;
  chatapp_call: boolean;
}

/** A number answers for one agent of its tenant at a time. */
@Entity({ tableName: 'agent_phone_numbers' })
@Unique({ properties: ['tenantUuid', 'number'] })
export class AgentPhoneNumber extends AgentChild {
  @Property({ type: 'string', length: 16 }) number!: string;
  @Property({ type: 'string', length: 16 }) status: string & Opt = 'active';
  @Property({ type: 'string', length: 2, nullable: true }) countryCode: string | null = null;
  @Property({ type: 'string', length: 32 }) type: string & Opt = 'local';
  @Property({ type: 'json' }) capabilities!: PhoneCapabilities;
}
