import { Reply } from '../../../core';

/**
 * A body that is not JSON (the chat page's HTML, the widget's JavaScript): the kernel
 * writes a Buffer body as it is, with the Content-Type of the headers (core/http/route.ts
 * Reply). A HEAD request gets the headers alone (node drops the body).
 */
export function textReply(contentType: string, body: string, headers: Record<string, string> = {}): Reply {
  return new Reply(200, Buffer.from(body, 'utf8'), { 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff', ...headers });
}
