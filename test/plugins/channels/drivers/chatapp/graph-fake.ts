import { randomBytes } from 'node:crypto';
import type { VendorReply, VendorRequest } from '../../../../../plugins/flows/testing-kit';

/** What the fake WhatsApp and Messenger servers share: Graph's error envelope and its token check. */

/** Graph's error body: `{error: {message, type, code, error_subcode?, error_data?, fbtrace_id}}`. */
export function graphErrorReply(
  status: number,
  error: { message: string; code: number; type?: string; error_subcode?: number; details?: string },
  headers?: Record<string, string>,
): VendorReply {
  return {
    status,
    ...(headers ? { headers } : {}),
    body: {
      error: {
        message: error.message,
        type: error.type ?? 'OAuthException',
        code: error.code,
        ...(error.error_subcode !== undefined ? { error_subcode: error.error_subcode } : {}),
        ...(error.details ? { error_data: { details: error.details } } : {}),
        fbtrace_id: randomBytes(8).toString('base64url'),
      },
    },
  };
}

/** The token a Graph call carries: `Authorization: Bearer …` or the `access_token` parameter, both of which Graph takes. */
export function tokenOf(request: VendorRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice('Bearer '.length);
  return request.query.get('access_token') ?? undefined;
}

/** Graph's answer to a missing or wrong token (code 190), or null when the token is the expected one. */
export function refuseToken(request: VendorRequest, expected: string): VendorReply | null {
  const token = tokenOf(request);
  if (token === undefined) return graphErrorReply(400, { code: 2500, message: 'An active access token must be used to query information about the current user.' });
  if (token !== expected) return graphErrorReply(401, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
  return null;
}

/** A script of failures answered, in order, instead of handling the next requests. */
export interface FailureScript {
  failures: VendorReply[];
}

export const takeFailure = (state: FailureScript): VendorReply | undefined => state.failures.shift();

export const unknownObject = (id: string): VendorReply =>
  graphErrorReply(400, {
    code: 100,
    error_subcode: 33,
    type: 'GraphMethodException',
    message: `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  });

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON body of a request, or null when it is not a JSON object (Graph also takes form fields; our drivers send JSON). */
export function jsonBody(request: VendorRequest): Record<string, unknown> | null {
  try {
    const body: unknown = request.json();
    return isRecord(body) ? body : null;
  } catch {
    return null;
  }
}
