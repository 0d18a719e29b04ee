import type { BusService, Egress, Logger, SecretsService, TenantService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { ConversationWriter } from '../../conversations';
import type { FileStorage } from '../../storage';
import type { AudioModule } from '../audio/audio-types';
import type { TranscriptionsSettings } from '../config';

/** What the plugin's routes and jobs work with, resolved once. */
export interface TranscriptionDeps {
  bus: BusService;
  egress: Egress;
  logger: Logger;
  secrets: SecretsService;
  tenants: TenantService;
  agents: AgentDirectory;
  conversations: ConversationWriter;
  storage: FileStorage;
  audio: AudioModule;
  settings: TranscriptionsSettings;
}
