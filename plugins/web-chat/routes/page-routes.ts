import { randomBytes } from 'node:crypto';
import { defineRoute, Type, type AnyRoute } from '../../../core';
import { chatPageHtml } from '../client/chat-page';
import { WIDGET_JS } from '../client/widget';
import { KeyParams } from '../schemas';
import type { VisitorAccess } from '../visitor-access';
import { textReply } from './text-reply';

const tags = ['web-chat'];
const Text = (description: string) => Type.String({ description });

/** The hosted chat page and the embeddable widget script. */
export function pageRoutes(access: VisitorAccess): AnyRoute[] {
  const page = defineRoute({
    method: 'GET',
    path: '/chat/:public_key',
    summary: 'The hosted chat page of a web chat channel',
    description:
      'An HTML page where visitors talk to the channel’s agent, replies streamed, usable with the keyboard and a screen reader. ' +
      'Link to it, or embed the widget (`/widget.js`) instead. An unknown key: 404.',
    tags,
    auth: 'public',
    params: KeyParams,
    response: Text('text/html'),
    errors: [404],
    handler: async ({ params, req }) => {
      await access.channel(req, params.public_key);
      const nonce = randomBytes(16).toString('base64');
      return textReply('text/html; charset=utf-8', chatPageHtml(params.public_key, nonce), {
        // Only the page's own inline script and style run, and it talks to this server alone.
        'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'`,
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
      });
    },
  });

  const widget = defineRoute({
    method: 'GET',
    path: '/widget.js',
    summary: 'The embeddable web chat widget',
    description:
      'JavaScript for one script element on a page of a channel’s allowed origin, with `src` this URL, `data-public-key` the channel’s `public_key` ' +
      'and `async` (optional `data-title`). It adds a button that opens the chat in an accessible dialog, talking to the public chat routes of the server it was loaded from.',
    tags,
    auth: 'public',
    response: Text('application/javascript'),
    handler: () =>
      textReply('application/javascript; charset=utf-8', WIDGET_JS, {
        'Cache-Control': 'public, max-age=300',
        // Pages that isolate themselves (Cross-Origin-Embedder-Policy) may still load it.
        'Cross-Origin-Resource-Policy': 'cross-origin',
      }),
  });
  return [page, widget];
}
