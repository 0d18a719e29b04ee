import { InboundMediaError, type DriverContext, type FetchedMedia, type InboundMedia } from '../../driver';
import { fetchedMedia, getMedia, jsonOf } from '../../inbound/media-download';

/** What `GET /{media-id}` answers is a small JSON object: no more is read. */
const NODE_MAX_BYTES = 64 * 1024;
const WHAT = 'the WhatsApp media';

/**
 * A customer's media on the WhatsApp Cloud API, as Meta documents the download: the
 * webhook gives a media id; `GET /{media-id}` with the token answers `{messaging_product,
 * url, mime_type, sha256, file_size, id}`, and the `url` (valid for 5 minutes, so it is
 * asked for on every try) is then fetched with the same bearer token. A webhook that
 * already carries a url and no id is fetched the same way.
 */
export async function fetchWhatsAppMedia(context: DriverContext<{ access_token: string }>, item: InboundMedia, limits: { maxBytes: number }): Promise<FetchedMedia> {
  const headers = { authorization: `Bearer ${context.connection.credentials.access_token}` };
  let url = item.url;
  let mimeType = item.mimeType ?? null;
  if (item.id) {
    const node = jsonOf<{ url?: unknown; mime_type?: unknown; file_size?: unknown }>(
      await getMedia(context.egress, `${context.apiBaseUrl}/${encodeURIComponent(item.id)}`, { what: WHAT, maxBytes: NODE_MAX_BYTES, headers }),
      WHAT,
    );
    if (typeof node.url !== 'string' || node.url === '') throw new InboundMediaError(`${WHAT}: the Cloud API answered no url for it`, false);
    if (typeof node.file_size === 'number' && node.file_size > limits.maxBytes) throw new InboundMediaError(`${WHAT} is ${node.file_size} bytes, more than ${limits.maxBytes}`, false);
    url = node.url;
    if (typeof node.mime_type === 'string' && node.mime_type !== '') mimeType = node.mime_type;
  }
  if (!url) throw new InboundMediaError(`${WHAT} names neither an id nor a url`, false);
  return fetchedMedia(await getMedia(context.egress, url, { what: WHAT, maxBytes: limits.maxBytes, headers }), mimeType, WHAT);
}
