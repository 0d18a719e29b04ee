/**
 * One value of a template's placeholder, as a task's `variables` gives it and as the Cloud
 * API's `template.components[].parameters[]` takes it:
 *
 * - a string or a number: `{type: 'text', text}`;
 * - in the body only, the platform's localised values, passed on as they are:
 *   `{type: 'currency', currency: {fallback_value, code, amount_1000}}` (an ISO 4217 code,
 *   the amount times 1000 as an integer: 12.5 EUR is `amount_1000: 12500`) and
 *   `{type: 'date_time', date_time: {fallback_value}}` (the Cloud API always shows the
 *   fallback text; the On-Premises API's day/month/... members are not taken).
 *
 * A header's placeholder takes text only.
 */

const MAX_VALUE = 1024;
/** Components whose placeholders take currency and date_time parameters. */
const LOCALISED_IN = ['body'];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= MAX_VALUE;

let currencies: ReadonlySet<string> | null = null;
/** The ISO 4217 codes the runtime's ICU knows (active currencies). */
function isCurrencyCode(code: string): boolean {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return currencies.has(code);
}

/** Members other than the ones named: each is refused at its own path rather than dropped unsent. */
function unknownMembers(record: Record<string, unknown>, known: readonly string[], at: string, add: (at: string, message: string) => void): void {
  for (const member of Object.keys(record)) if (!known.includes(member)) add(`${at}.${member}`, `is not taken (only ${known.join(', ')})`);
}

function fallbackErrors(record: Record<string, unknown>, at: string, add: (at: string, message: string) => void): void {
  if (!isText(record.fallback_value)) add(`${at}.fallback_value`, `is required: the text shown when the value cannot be localised, a non-empty string of at most ${MAX_VALUE} characters`);
}

/** Whether one value fits a placeholder of `component`; each problem at `at` or below it. */
export function valueErrors(component: string, value: unknown, at: string, add: (at: string, message: string) => void): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) add(at, 'must be a finite number');
    return;
  }
  if (typeof value === 'string') {
    if (!isText(value)) add(at, `must be a non-empty string of at most ${MAX_VALUE} characters`);
    return;
  }
  const localised = LOCALISED_IN.includes(component);
  const shapes = localised ? 'a string, a number, {type: "currency", currency: {fallback_value, code, amount_1000}} or {type: "date_time", date_time: {fallback_value}}' : 'a string or a number';
  if (!isRecord(value) || (value.type !== 'currency' && value.type !== 'date_time')) return add(at, `must be ${shapes}`);
  if (!localised) return add(`${at}.type`, `a ${component} placeholder takes text only: ${value.type} parameters go in the body`);
  const type = value.type;
  unknownMembers(value, ['type', type], at, add);
  const inner = value[type];
  if (!isRecord(inner)) return add(`${at}.${type}`, type === 'currency' ? 'is required: {fallback_value, code, amount_1000}' : 'is required: {fallback_value}');
  const innerAt = `${at}.${type}`;
  fallbackErrors(inner, innerAt, add);
  if (type === 'date_time') return unknownMembers(inner, ['fallback_value'], innerAt, add);
  unknownMembers(inner, ['fallback_value', 'code', 'amount_1000'], innerAt, add);
  const code = inner.code;
  if (typeof code !== 'string' || !/^[A-Z]{3}$/.test(code) || !isCurrencyCode(code)) add(`${innerAt}.code`, 'must be an ISO 4217 currency code in capitals (EUR, USD, ...)');
  const amount = inner.amount_1000;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) add(`${innerAt}.amount_1000`, 'must be an integer: the amount times 1000 (12.5 is 12500)');
}

/** The Cloud API parameter of a value that valueErrors took. */
export function sendParameter(value: unknown): Record<string, unknown> {
  if (isRecord(value) && value.type === 'currency' && isRecord(value.currency)) {
    const { fallback_value, code, amount_1000 } = value.currency;
    return { type: 'currency', currency: { fallback_value, code, amount_1000 } };
  }
  if (isRecord(value) && value.type === 'date_time' && isRecord(value.date_time)) return { type: 'date_time', date_time: { fallback_value: value.date_time.fallback_value } };
  return { type: 'text', text: String(value ?? '') };
}

/** What a sent parameter reads as in the conversation: its text, or a localised value's fallback text. */
export function parameterText(parameter: unknown): string | undefined {
  if (!isRecord(parameter)) return undefined;
  if (typeof parameter.text === 'string') return parameter.text;
  const inner = parameter[String(parameter.type)];
  return isRecord(inner) && typeof inner.fallback_value === 'string' ? inner.fallback_value : undefined;
}
