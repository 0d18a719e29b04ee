import { isIP } from 'node:net';
import { Type, type FieldErrors } from '../../../core';

/**
 * The values SIP configuration is made of, checked where a JSON schema cannot say it
 * well (a host that is a name or an address; an address or a CIDR block). Each check
 * answers a sentence for the 422 at the member's path, or null.
 */

export const E164 = Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164, with its `+`: `+14155550100`' });
export const Port = Type.Integer({ minimum: 1, maximum: 65535, description: 'UDP/TCP port, 1 to 65535 (SIP uses 5060, 5061 for TLS)' });
export const Transport = Type.Union([Type.Literal('udp'), Type.Literal('tcp'), Type.Literal('tls')], { description: 'SIP transport: `udp`, `tcp` or `tls`' });
export const Status = Type.Union([Type.Literal('active'), Type.Literal('inactive')]);
export const Name = Type.String({ minLength: 1, maxLength: 200 });
/** A host as it is typed into a softphone or PBX: no scheme, no port, no path. Checked by `hostProblem`. */
export const Host = (description: string) => Type.String({ minLength: 1, maxLength: 253, description: `${description}: a hostname or an IPv4/IPv6 address, without scheme, port or path` });

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

export function hostProblem(value: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^sips?:/i.test(value)) return 'must be a hostname or an IP address, without a scheme (no `sip:` or `https://`)';
  if (value.includes('/')) return 'must be a hostname or an IP address, without a path';
  if (isIP(value) !== 0) return null;
  if (/^\[.*\]$/.test(value) && isIP(value.slice(1, -1)) === 6) return 'must be an IPv6 address without brackets';
  const labels = value.replace(/\.$/, '').split('.');
  // A name whose last label is all digits is a mistyped IPv4 address (`10.0.0.300`), not a host.
  if (labels.every((label) => LABEL.test(label)) && !/^[0-9]+$/.test(labels[labels.length - 1])) return null;
  if (/:[0-9]+$/.test(value)) return 'must be a hostname or an IP address, without a port (send the port in its own member)';
  return 'must be a hostname or an IP address';
}

/** An IPv4/IPv6 address, or a CIDR block (`203.0.113.0/24`, `2001:db8::/32`). */
export function addressOrBlockProblem(value: string): string | null {
  const [address, prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (rest.length > 0 || family === 0) return 'must be an IPv4 or IPv6 address or a CIDR block (`203.0.113.0/24`)';
  if (prefix === undefined) return null;
  const bits = /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  const max = family === 4 ? 32 : 128;
  if (!(bits >= 0 && bits <= max)) return `must have a prefix length from 0 to ${max}`;
  return null;
}

/** An address list as sent (an array, or one string of entries split by commas or spaces) as the stored array, with each problem at its path. */
export function addressList(value: string | string[], path: string, errors: FieldErrors): string[] {
  const entries = typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value.map((entry) => entry.trim());
  entries.forEach((entry, index) => {
    const problem = addressOrBlockProblem(entry);
    if (problem) (errors[typeof value === 'string' ? path : `${path}.${index}`] ??= []).push(typeof value === 'string' ? `${JSON.stringify(entry)} ${problem}` : problem);
  });
  if (entries.length > MAX_ADDRESSES) (errors[path] ??= []).push(`must hold at most ${MAX_ADDRESSES} entries`);
  return [...new Set(entries)];
}

const MAX_ADDRESSES = 100;

export const AddressListWrite = (description: string) =>
  Type.Union([Type.String({ maxLength: 5000 }), Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: MAX_ADDRESSES })], {
    description: `${description}. An array of IPv4/IPv6 addresses or CIDR blocks, or one string of them separated by commas or spaces; always answered as an array. Empty: no address restriction`,
  });

export function pushProblem(errors: FieldErrors, path: string, problem: string | null): void {
  if (problem) (errors[path] ??= []).push(problem);
}
