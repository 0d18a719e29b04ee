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
  graph.state.templates.push(
    upstreamTemplate('order_shipped', 1, {
      components: [
        { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1hZ2U='] } },
        { type: 'BODY', text: 'Your order {{1}} is on its way.' },
        { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Stop updates' }, { type: 'URL', text: 'Track it', url: 'https://shop.example/track/{{1}}', example: ['https://shop.example/track/A-1'] }] },
      ],
    }),
  );
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

  it('sends a media header and button parameters in the documented shape, which the platform checks against the template', async () => {
    const components = [
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example/box.jpg' } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'A-1' }] },
      { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'STOP-A-1' }] },
      { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'A-1' }] },
    ];
    const sent = await chatappDriver.sendTemplate!(context(), { to: '+34600000203', name: 'order_shipped', language: 'en_US', components, idempotencyKey: 'k3' });
    const recorded = graph.state.templateSends.find((s) => s.id === sent.externalId)!;
    expect(recorded).toMatchObject({ bodyValues: ['A-1'], header: { type: 'image', image: { link: 'https://cdn.example/box.jpg' } }, buttons: [{ index: 0, sub_type: 'quick_reply', value: 'STOP-A-1' }, { index: 1, sub_type: 'url', value: 'A-1' }] });

    // The platform refuses what does not fit the template: no image for its image header, no suffix for its URL button.
    const refused = async (list: typeof components) => chatappDriver.sendTemplate!(context(), { to: '+34600000204', name: 'order_shipped', language: 'en_US', components: list, idempotencyKey: 'k4' }).catch((error) => error);
    expect((await refused(components.slice(1))).message).toContain('Number of parameters does not match');
    expect((await refused(components.slice(0, 3))).message).toContain('Number of parameters does not match');
    expect((await refused([{ type: 'header', parameters: [{ type: 'text', text: 'x' }] }, ...components.slice(1)] as typeof components)).message).toContain('Parameter format does not match');
  });
});
