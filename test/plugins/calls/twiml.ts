import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * TwiML for voice as the Twilio voice fake reads it: the document must be well-formed XML
 * whose root is `<Response>` (else Twilio's 12100, Document parse failure), every verb one
 * Twilio knows (else 12200, Schema validation), every verb one the fake plays (the others
 * are refused with 12200 too, naming the fake, so a test never passes over a verb it did
 * not play), and each verb's attributes valid where Twilio documents an error code.
 */

export interface TwimlVerb {
  name: string;
  attributes: Record<string, string>;
  /** The element's own text (a `<Say>`'s words, a `<Redirect>`'s URL, a `<Dial>`'s bare number). */
  text: string;
  children: TwimlVerb[];
}

/** An error or warning as Twilio's debugger reports it. */
export interface TwilioVoiceError {
  code: number;
  message: string;
}

export type ParsedTwiml = { ok: true; verbs: TwimlVerb[]; warnings: TwilioVoiceError[] } | { ok: false; error: TwilioVoiceError };

/** Twilio's voice verbs; those the fake does not play are refused (see the server's header). */
const KNOWN_VERBS = new Set(['Say', 'Play', 'Pause', 'Gather', 'Hangup', 'Redirect', 'Dial', 'Reject', 'Record', 'Enqueue', 'Leave', 'Connect', 'Start', 'Stop', 'Refer', 'Pay', 'Echo', 'Queue', 'Sms']);
const PLAYED_VERBS = new Set(['Say', 'Play', 'Pause', 'Gather', 'Hangup', 'Redirect', 'Dial']);
/** What `<Gather>` may nest (Twilio's schema). */
const GATHER_NESTS = new Set(['Say', 'Play', 'Pause']);
const DIAL_NOUNS = new Set(['Number', 'Conference', 'Client', 'Sip', 'Queue', 'Application']);
const PLAYED_DIAL_NOUNS = new Set(['Number', 'Conference', 'Sip']);
/** What a `<Number url>` / `<Sip url>` document (played to the callee before the bridge) may hold in the fake. */
export const WHISPER_VERBS = new Set(['Say', 'Play', 'Pause']);
/** Twilio's `transport` values of a `<Sip>` URI. */
const SIP_TRANSPORTS = new Set(['udp', 'tcp', 'tls']);

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const schemaError = (message: string): ParsedTwiml => ({ ok: false, error: { code: 12200, message } });

export function parseTwiml(body: string): ParsedTwiml {
  // The parser alone accepts unclosed tags: the validator is the well-formedness check.
  const valid = XMLValidator.validate(body);
  if (valid !== true) return { ok: false, error: { code: 12100, message: `Document parse failure: ${valid.err.msg} (line ${valid.err.line})` } };
  const roots = (parser.parse(body) as OrderedNode[]).map(toVerb).filter((node): node is TwimlVerb => node !== null);
  if (roots.length !== 1 || roots[0].name !== 'Response') return { ok: false, error: { code: 12100, message: 'Document parse failure: the root element must be <Response>' } };
  const warnings: TwilioVoiceError[] = [];
  for (const verb of roots[0].children) {
    const problem = checkVerb(verb, warnings);
    if (problem) return problem;
  }
  return { ok: true, verbs: roots[0].children, warnings };
}

function toVerb(node: OrderedNode): TwimlVerb | null {
  const name = Object.keys(node).find((key) => key !== ':@');
  if (!name || name === '#text' || name.startsWith('?') || name === '#comment') return null;
  const content = (node[name] as OrderedNode[]) ?? [];
  const text = content
    .filter((child) => '#text' in child)
    .map((child) => String(child['#text']))
    .join(' ')
    .trim();
  return { name, attributes: { ...(node[':@'] ?? {}) }, text, children: content.map(toVerb).filter((child): child is TwimlVerb => child !== null) };
}

function checkVerb(verb: TwimlVerb, warnings: TwilioVoiceError[]): ParsedTwiml | null {
  if (!KNOWN_VERBS.has(verb.name)) return schemaError(`Schema validation: <${verb.name}> is not a TwiML voice verb`);
  if (!PLAYED_VERBS.has(verb.name)) return schemaError(`<${verb.name}> is TwiML the Twilio voice fake does not play`);
  if (verb.name === 'Gather') return checkGather(verb, warnings);
  if (verb.name === 'Dial') return checkDial(verb);
  if (verb.name === 'Redirect' && !verb.text) return schemaError('Schema validation: <Redirect> needs a URL');
  if (verb.name === 'Pause' && verb.attributes.length !== undefined && !/^\d+$/.test(verb.attributes.length)) return schemaError(`Schema validation: <Pause length="${verb.attributes.length}">`);
  if (verb.children.length > 0 && verb.name !== 'Gather' && verb.name !== 'Dial') return schemaError(`Schema validation: <${verb.name}> nests <${verb.children[0].name}>`);
  return null;
}

function checkGather(verb: TwimlVerb, warnings: TwilioVoiceError[]): ParsedTwiml | null {
  const inputs = (verb.attributes.input ?? 'dtmf').split(/\s+/);
  if (inputs.some((input) => input !== 'dtmf' && input !== 'speech')) return schemaError(`Schema validation: <Gather input="${verb.attributes.input}">`);
  // Valid TwiML, but a caller of the fake only speaks: a keypad-only Gather is our bug.
  if (!inputs.includes('speech')) return schemaError('<Gather> without input="speech": the Twilio voice fake plays speech turns only');
  const onEmpty = verb.attributes.actionOnEmptyResult;
  if (onEmpty !== undefined && onEmpty !== 'true' && onEmpty !== 'false') return { ok: false, error: { code: 13338, message: `Gather: Invalid actionOnEmptyResult value "${onEmpty}"` } };
  const speechTimeout = verb.attributes.speechTimeout;
  if (speechTimeout !== undefined && speechTimeout !== 'auto' && !/^\d+$/.test(speechTimeout)) warnings.push({ code: 13327, message: `Gather: Invalid speechTimeout value "${speechTimeout}"` });
  const timeout = verb.attributes.timeout;
  if (timeout !== undefined && !/^\d+$/.test(timeout)) warnings.push({ code: 13313, message: `Gather: Invalid timeout value "${timeout}"` });
  const nested = verb.children.find((child) => !GATHER_NESTS.has(child.name));
  if (nested) return schemaError(`Schema validation: <Gather> may not nest <${nested.name}>`);
  return null;
}

function checkDial(verb: TwimlVerb): ParsedTwiml | null {
  const unknown = verb.children.find((child) => !DIAL_NOUNS.has(child.name));
  if (unknown) return schemaError(`Schema validation: <Dial> may not nest <${unknown.name}>`);
  const unplayed = verb.children.find((child) => !PLAYED_DIAL_NOUNS.has(child.name));
  if (unplayed) return schemaError(`<Dial><${unplayed.name}> is TwiML the Twilio voice fake does not play`);
  if (verb.children.length > 1) return schemaError('<Dial> with several nouns: the Twilio voice fake dials one');
  if (!verb.text && verb.children.every((child) => !child.text)) return schemaError('Schema validation: <Dial> names nothing to dial');
  for (const noun of verb.children) {
    const method = noun.attributes.method;
    if (method !== undefined && method !== 'GET' && method !== 'POST') return schemaError(`Schema validation: <${noun.name} method="${method}">`);
    if (noun.name === 'Sip') {
      const problem = sipProblem(noun.text);
      if (problem) return schemaError(`Schema validation: <Sip> URI "${noun.text}": ${problem}`);
    }
  }
  return null;
}

/** A `<Sip>` noun's URI as Twilio takes it: `sip:user@host[:port][;transport=udp|tcp|tls]`, under 255 characters. */
function sipProblem(uri: string): string | null {
  if (uri.length >= 255) return 'longer than 254 characters';
  const match = /^sips?:([^@\s;]+)@([A-Za-z0-9.-]+)(?::(\d{1,5}))?((?:;[^;=\s]+=[^;\s]*)*)$/i.exec(uri);
  if (!match) return 'not sip:user@host[:port][;params]';
  if (match[3] !== undefined && (Number(match[3]) < 1 || Number(match[3]) > 65535)) return `port ${match[3]}`;
  const transport = /;transport=([^;]*)/i.exec(match[4] ?? '')?.[1];
  if (transport !== undefined && !SIP_TRANSPORTS.has(transport.toLowerCase())) return `transport ${transport}`;
  return null;
}
