import { InboundMediaError, type DriverContext, type FetchedMedia, type InboundMedia } from '../../driver';
import { fetchedMedia, getMedia, jsonOf } from '../../inbound/media-download';
import type { TelegramCredentials } from './credentials';

const NODE_MAX_BYTES = 64 * 1024;
const WHAT = 'the Telegram file';

/**
 * A file a customer sent a bot, as the Bot API documents the download: `getFile` with the
 * `file_id` answers a File (`{file_id, file_unique_id, file_size, file_path}`), and the
 * bytes are at `{base}/file/bot{token}/{file_path}` (valid for at least an hour; bots may
 * download files of up to 20 MB). Both URLs hold the token: errors never name them.
 */
export async function fetchTelegramFile(context: DriverContext<TelegramCredentials>, item: InboundMedia, limits: { maxBytes: number }): Promise<FetchedMedia> {
  if (!item.id) throw new InboundMediaError(`${WHAT} has no file_id`, false);
  const token = context.connection.credentials.bot_token;
  const answer = jsonOf<{ ok?: unknown; result?: { file_path?: unknown; file_size?: unknown } }>(
    await getMedia(context.egress, `${context.apiBaseUrl}/bot${token}/getFile`, { what: WHAT, maxBytes: NODE_MAX_BYTES, query: { file_id: item.id } }),
    WHAT,
  );
  const path = answer.ok === true ? answer.result?.file_path : undefined;
  if (typeof path !== 'string' || path === '') throw new InboundMediaError(`${WHAT}: getFile answered no file_path (larger than 20 MB, or gone)`, false);
  const size = answer.result?.file_size;
  if (typeof size === 'number' && size > limits.maxBytes) throw new InboundMediaError(`${WHAT} is ${size} bytes, more than ${limits.maxBytes}`, false);
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return fetchedMedia(await getMedia(context.egress, `${context.apiBaseUrl}/file/bot${token}/${encoded}`, { what: WHAT, maxBytes: limits.maxBytes }), item.mimeType, WHAT);
}
