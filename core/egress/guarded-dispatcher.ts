import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import type { AddressPolicy } from './address-policy';
import { EgressRefusedError } from './egress-errors';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to its addresses (the system resolver unless a test injects one). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardedAgentOptions {
  policy: AddressPolicy;
  connectTimeoutMs: number;
  resolve?: HostResolver;
  /** Certificates trusted instead of Node's root store (see EgressOptions.trustedCa). */
  trustedCa?: string | Buffer | Array<string | Buffer>;
}

const systemResolve: HostResolver = (hostname) => dns.promises.lookup(hostname, { all: true, order: 'verbatim' });

/**
 * An undici Agent that checks the address of every connection it opens, when it
 * opens it. Checking a URL before the call is not enough: DNS can answer a public
 * address to the check and a private one to the connect (rebinding). Here the only
 * addresses a socket can be given are the ones just checked:
 * - a host name goes through `lookup`, which resolves it, refuses the connection if
 *   any answer is refused, and hands the same answers to the socket;
 * - a literal IP skips `lookup` in Node, so the connector checks it first. The
 *   hostname undici hands over is the WHATWG-normalised one (`2130706433`, `0177.0.0.1`,
 *   `127.1` and `0x7f.0.0.1` all arrive as `127.0.0.1`, `[::ffff:127.0.0.1]` as
 *   `::ffff:7f00:1`), which is the address the socket would reach.
 * Keep-alive sockets are reused only for the origin they were checked for.
 */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const resolve = options.resolve ?? systemResolve;

  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (answers) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const addresses = family === 0 ? answers : answers.filter((answer) => answer.family === family);
        if (addresses.length === 0) {
          const notFound = Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND', hostname });
          return callback(notFound, '', 0);
        }
        for (const { address } of addresses) {
          const verdict = options.policy.check(address);
          if (!verdict.allowed) return callback(new EgressRefusedError(`${hostname} resolves to ${address}: ${verdict.reason}`), '', 0);
        }
        if (lookupOptions.all) return (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, addresses);
        return callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

  // undici's own connector does the TCP/TLS work (and the connect timeout, which
  // covers the lookup too); it passes `lookup` through to net/tls.connect.
  const connectSocket = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup, ca: options.trustedCa });

  const connect: buildConnector.connector = (connectOptions, callback) => {
    if (net.isIP(connectOptions.hostname) !== 0) {
      const verdict = options.policy.check(connectOptions.hostname);
      if (!verdict.allowed) return callback(new EgressRefusedError(verdict.reason), null);
    }
    connectSocket(connectOptions, callback);
  };

  // The caller's total timeout governs slow responses; undici's own idle timers
  // (300 s by default) would otherwise cut long LLM answers short with another error.
  return new Agent({ connect, headersTimeout: 0, bodyTimeout: 0 });
}
