import type { Egress } from 'switchboard/core';

/** What a connection to Acme Leads holds: the members of its auth's schema (auth.ts). */
export interface AcmeLeadsCredentials {
  api_key: string;
  base_url: string;
}

export interface AcmeLeadsList {
  id: string;
  name: string;
}

export interface AcmeLead {
  id: number;
  list_id: string;
  email: string;
  name: string;
  tags: string[];
  created_at: string;
}

/** What adding a lead sends. */
export interface NewAcmeLead {
  email: string;
  name?: string;
  tags: string[];
}

/** An answer of Acme Leads that is not a success, with its status (401: the API key is refused). */
export class AcmeLeadsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AcmeLeadsError';
  }
}

/**
 * The credentials of a step's connection. The flows plugin gives every step of a
 * `connect` app one, checked against the app's auth when it was stored.
 */
export function credentialsOf(connection: { credentials: object } | null): AcmeLeadsCredentials {
  if (!connection) throw new Error('Acme Leads needs a connection: choose one for this step');
  return connection.credentials as AcmeLeadsCredentials;
}

type Query = Record<string, string | number>;

/**
 * The Acme Leads API as the app uses it. Every call goes through `egress`, the kernel's
 * client for outbound calls (it refuses private addresses, bounds time and size), and
 * sends the connection's API key.
 */
export function acmeLeadsClient(credentials: AcmeLeadsCredentials, egress: Egress) {
  const base = credentials.base_url.replace(/\/+$/, '');
  async function call<T>(method: string, path: string, options: { query?: Query; body?: Record<string, unknown>; idempotencyKey?: string } = {}): Promise<T> {
    const response = await egress.request(`${base}${path}`, { method, headers: { authorization: `Bearer ${credentials.api_key}` }, ...options });
    if (response.status >= 300) throw new AcmeLeadsError(response.status, `Acme Leads answered ${response.status} to ${method} ${path}`);
    return response.json<T>();
  }
  const leadsOf = (listId: string) => `/v1/lists/${encodeURIComponent(listId)}/leads`;
  return {
    me: () => call<{ account: string }>('GET', '/v1/me'),
    /** A page of the account's lists whose name holds `search`; Acme Leads pages them with cursors of its own. */
    lists: (search: string | null, cursor: string | null) =>
      call<{ items: AcmeLeadsList[]; next_cursor: string | null }>('GET', '/v1/lists', { query: { q: search ?? '', ...(cursor ? { cursor } : {}) } }),
    /** A list's leads: the oldest first after the lead `after`, or the newest first. */
    leads: (listId: string, query: { after: number; limit: number } | { order: 'newest'; limit: number }) => call<{ items: AcmeLead[] }>('GET', leadsOf(listId), { query }),
    /** Adds a lead; a request repeated with the same `idempotencyKey` adds nothing and answers the same lead. */
    createLead: (listId: string, lead: NewAcmeLead, idempotencyKey: string) => call<AcmeLead>('POST', leadsOf(listId), { body: { ...lead }, idempotencyKey }),
  };
}
