import { EgressError, HttpError, ValidationError, type Egress, type EgressResponse } from '../../../core';
import { graphErrorOf } from '../drivers/chatapp/graph';

/**
 * The Graph edge of a business account's message templates, `/{waba_id}/message_templates`:
 * `GET` pages of `{data: [{id, name, language, status, category, components}], paging:
 * {cursors: {before, after}, next?}}`, `POST {name, category, language, components}` ->
 * `{id, status, category}`, `DELETE ?name=` -> `{success: true}`. Called with no
 * transaction open; the caller writes what it learns afterwards.
 */

export interface GraphAccess {
  egress: Egress;
  /** CHATAPP_API_BASE_URL, without a trailing slash. */
  apiBaseUrl: string;
  accessToken: string;
}

/** A template as the Graph lists it. */
export interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  components: unknown[];
}

/** At most this many pages are read per sync (about 250 templates per business account). */
export const MAX_SYNC_PAGES = 10;
const PAGE_SIZE = 100;

const edge = (access: GraphAccess, wabaId: string) => `${access.apiBaseUrl}/${encodeURIComponent(wabaId)}/message_templates`;

/** The Graph's reason for a refusal, for a 422 or a 502 message. */
function reasonOf(response: EgressResponse): string {
  const error = graphErrorOf(response);
  const detail = error?.error_user_msg ?? error?.error_data?.details;
  return error?.message ? `${error.message}${detail && detail !== error.message ? `: ${detail}` : ''}` : `HTTP ${response.status}`;
}

async function call(access: GraphAccess, url: string, options: { method?: string; query?: Record<string, string>; body?: Record<string, unknown> }): Promise<EgressResponse> {
  try {
    return await access.egress.request(url, { method: options.method ?? 'GET', headers: { authorization: `Bearer ${access.accessToken}` }, ...(options.query ? { query: options.query } : {}), ...(options.body ? { body: options.body } : {}), retries: 0 });
  } catch (error) {
    throw new HttpError(502, `The chatapp platform could not be reached: ${error instanceof EgressError ? error.message : String(error)}`);
  }
}

/** A 4xx is the platform refusing what was asked (a 422 at `field`); anything else is the platform failing (502). */
function refusal(response: EgressResponse, field: string, what: string): Error {
  if (response.status >= 400 && response.status < 500 && response.status !== 429) return new ValidationError({ [field]: [`the chatapp platform refused ${what}: ${reasonOf(response)}`] });
  return new HttpError(502, `The chatapp platform failed ${what}: ${reasonOf(response)}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

function templateOf(item: unknown): GraphTemplate | null {
  if (!isRecord(item) || !text(item.id) || !text(item.name)) return null;
  return {
    id: text(item.id),
    name: text(item.name),
    language: text(item.language),
    status: text(item.status) || 'PENDING',
    category: text(item.category),
    components: Array.isArray(item.components) ? item.components : [],
  };
}

/**
 * Every template of the business account, page after page while the Graph names a
 * `paging.next`, at most MAX_SYNC_PAGES pages. The next page is asked of our own base
 * URL with the `after` cursor rather than by fetching `paging.next` as given, so the
 * token only ever goes to the configured API.
 */
export async function listTemplates(access: GraphAccess, wabaId: string): Promise<GraphTemplate[]> {
  const templates: GraphTemplate[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_SYNC_PAGES; page++) {
    const query: Record<string, string> = { limit: String(PAGE_SIZE), fields: 'id,name,language,status,category,components', ...(after ? { after } : {}) };
    const response = await call(access, edge(access, wabaId), { query });
    if (response.status !== 200) throw refusal(response, 'waba_id', 'the template list');
    const body = response.json<{ data?: unknown; paging?: { next?: unknown; cursors?: { after?: unknown } } }>();
    for (const item of Array.isArray(body.data) ? body.data : []) {
      const template = templateOf(item);
      if (template) templates.push(template);
    }
    const next = typeof body.paging?.next === 'string' && body.paging.next !== '' ? text(body.paging?.cursors?.after) : '';
    if (!next) break;
    after = next;
  }
  return templates;
}

/** Submits a template for review; answers the platform's id and status. */
export async function createTemplate(access: GraphAccess, wabaId: string, template: { name: string; language: string; category: string; components: unknown[] }): Promise<{ id: string; status: string; category: string }> {
  const response = await call(access, edge(access, wabaId), { method: 'POST', body: template });
  if (response.status !== 200 && response.status !== 201) throw refusal(response, 'components', 'the template');
  const body = response.json<{ id?: unknown; status?: unknown; category?: unknown }>();
  if (!text(body.id)) throw new HttpError(502, 'The chatapp platform accepted the template but answered no id');
  return { id: text(body.id), status: text(body.status) || 'PENDING', category: text(body.category) || template.category };
}

/** Deletes a template (every language of the name, as the platform does) by name; one the platform no longer has counts as deleted. */
export async function deleteTemplate(access: GraphAccess, wabaId: string, name: string): Promise<void> {
  const response = await call(access, edge(access, wabaId), { method: 'DELETE', query: { name } });
  if (response.status === 200) return;
  // Graph answers an unknown template with code 100 (subcode 2593002 "template not found"): already gone upstream.
  const error = graphErrorOf(response);
  if (response.status === 404 || (response.status === 400 && error?.code === 100 && /not (be )?found|does not exist/i.test(error.message ?? ''))) return;
  throw refusal(response, 'uuid', 'the template delete');
}
