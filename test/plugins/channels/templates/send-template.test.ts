import { ChannelSendError } from '../../../../plugins/channels';
import { chatappDriver } from '../../../../plugins/channels/drivers/chatapp';
import { driverContext, loopbackEgress } from '../drivers/driver-test-kit';
import { startWhatsAppServer, type WhatsAppServer } from '../drivers/chatapp/whatsapp-server';
import { upstreamTemplate } from './chatapp-kit';

let graph: WhatsAppServer;
const egress = loopbackEgress();

beforeAll(async () => {
  graph = await startWhatsAppServer();
  graph.state.templates.push(upstreamTemplate('order_update', 2));
});
afterAll(async () => {
  await graph?.close();
  await egress.close();
});

const context = () =>
  driverContext(
    'chatapp',
    { phone_number_id: graph.state.phoneNumberId, business_account_id: graph.state.wabaId, access_token: graph.state.accessToken, app_secret: 's', verify_token: 'v' },
    egress,
    graph.apiBaseUrl,
  );
const body = (...values: string[]) => [{ type: 'body', parameters: values.map((text) => ({ type: 'text', text })) }];

describe('chatapp driver: sendTemplate', () => {
  it('sends type template to the messages edge and answers the message id', async () => {
    const sent = await chatappDriver.sendTemplate!(context(), { to: '+34600000201', name: 'order_update', language: 'en_US', components: body('Ana', 'A-1'), idempotencyKey: 'k1' });
    const [recorded] = graph.state.templateSends;
    expect(sent.externalId).toBe(recorded.id);
    expect(recorded).toMatchObject({ to: '34600000201', bodyValues: ['Ana', 'A-1'] });
    expect(recorded.request).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '34600000201',
      type: 'template',
      template: { name: 'order_update', language: { code: 'en_US' }, components: body('Ana', 'A-1') },
    });
  });

  it('a refusal (parameters that do not match) is a ChannelSendError that is not retried, with the platform’s reason', async () => {
    const failure = await chatappDriver.sendTemplate!(context(), { to: '+34600000202', name: 'order_update', language: 'en_US', components: body('Ana'), idempotencyKey: 'k2' }).catch((error) => error);
    expect(failure).toBeInstanceOf(ChannelSendError);
    expect(failure.retryable).toBe(false);
    expect(failure.message).toContain('Number of parameters does not match');
  });
});
