import path from 'node:path';
import type { ApiClient } from '../../../../core/testing';
import type { FakeTemplate, WhatsAppServer } from '../drivers/chatapp/whatsapp-server';

/** What the template and send_message tests share (not a test file): the plugins, a chatapp connection, upstream templates. */

export const CHANNELS = path.resolve(__dirname, '../../../../plugins/channels');
export const OUTREACH = path.resolve(__dirname, '../../../../plugins/outreach');

/** A chatapp connection of the API's tenant on the fake's account (its token and business account unless told). */
export async function chatappConnection(api: ApiClient, graph: WhatsAppServer, overrides: Record<string, string> = {}): Promise<string> {
  const created = await api
    .post('/api/v1/channel-connections')
    .send({
      provider: 'chatapp',
      label: 'WhatsApp line',
      credentials: { phone_number_id: graph.state.phoneNumberId, business_account_id: graph.state.wabaId, access_token: graph.state.accessToken, app_secret: 'app-secret', verify_token: 'verify-me', ...overrides },
    })
    .expect(201);
  return created.body.data.uuid;
}

let next = 0;
/** A template the platform holds (approved unless told), with `placeholders` numbered ones in its body. */
export function upstreamTemplate(name: string, placeholders: number, overrides: Partial<FakeTemplate> = {}): FakeTemplate {
  next += 1;
  const values = Array.from({ length: placeholders }, (_, index) => `{{${index + 1}}}`).join(' and ');
  return {
    id: `${9_000_000_000_000 + next}`,
    name,
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: placeholders > 0 ? `Hello ${values}.` : 'Hello.' }, { type: 'FOOTER', text: 'Reply STOP to opt out' }],
    ...overrides,
  };
}
