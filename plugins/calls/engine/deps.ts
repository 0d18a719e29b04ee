import type { BusService, Egress, Logger, OrmService, TenantService } from '../../../core';
import type { AgentChannels, AgentDirectory } from '../../agents';
import type { ChannelConnections } from '../../channels';
import type { ContactDirectory } from '../../contacts';
import type { ConversationWriter } from '../../conversations';
import type { ChatTurns } from '../../runtime';
import type { FileStorage } from '../../storage';
import type { PbxDirectory } from '../../telephony';
import type { TelephonyDriver } from '../driver';

/** What the call engine works with: the kernel's services and the plugins a call touches. */
export interface CallDeps {
  orm: OrmService;
  tenants: TenantService;
  bus: BusService;
  egress: Egress;
  logger: Logger;
  /** Installed telephony drivers by provider. */
  drivers: ReadonlyMap<string, TelephonyDriver>;
  connections: ChannelConnections;
  agents: AgentDirectory;
  agentChannels: AgentChannels;
  conversations: ConversationWriter;
  contacts: ContactDirectory;
  turns: ChatTurns;
  /** Where recordings are kept. */
  storage: FileStorage;
  /** The tenant's PBX extensions, for transfers to `destination_type: extension`. */
  pbx: PbxDirectory;
}
