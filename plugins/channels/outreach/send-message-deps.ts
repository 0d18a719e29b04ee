import { createServiceRef, type SecretsService, type TenantService } from '../../../core';
import type { InboundTurnDeps } from '../turns/inbound-turns';

/**
 * What the send_message executor needs of the channels plugin: a service of the channels
 * plugin, which the executor names in its `deps` (the plugin that contributes it to
 * outreach hands it over: plugins/channels-outreach).
 */
export interface SendMessageDeps extends InboundTurnDeps {
  secrets: SecretsService;
  tenants: TenantService;
  /** PUBLIC_BASE_URL: hook URLs (Twilio's status callbacks) are built from it. */
  publicBaseUrl: string;
}

export const channelSendingRef = createServiceRef<SendMessageDeps>('channels.sending');
