import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { LlmResponseError } from './llm-errors';
import type { ChatResult } from './llm-types';

/**
 * Checks a structured answer against its schema. Servers differ in how far they
 * enforce `response_format` (some ignore it, some only constrain the syntax), so the
 * answer is validated here whatever the server promised.
 */

// Not strict: schemas written for models carry keywords ajv does not know (`title`s, vendor hints), which must not fail a call.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

// A schema object is usually a constant of the calling module: compiled once, dropped with it.
const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles `schema` (once per schema object); an invalid schema throws before any call is made. */
export function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    // ajv's own cache holds every schema for good: schemas built per call (from an agent's settings, say)
    // would pile up, and two with one `$id` would clash. The WeakMap above is the cache instead.
    ajv.removeSchema(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** The answer's JSON value, conforming to the schema, or an `LlmResponseError` saying what is wrong (never quoting the answer). */
export function parseStructuredAnswer(result: ChatResult, validate: ValidateFunction): unknown {
  const cutOff = result.finishReason === 'length' ? ' (the answer was cut off at the token limit)' : '';
  if (result.content === null || result.content.trim() === '') {
    throw new LlmResponseError(`the model gave no JSON answer (finish reason: ${result.finishReason})`, result.content);
  }
  let value: unknown;
  try {
    value = JSON.parse(withoutCodeFence(result.content));
  } catch {
    throw new LlmResponseError(`the model's answer is not valid JSON${cutOff}`, result.content);
  }
  if (!validate(value)) {
    // ajv's messages name the path and the rule broken, not the value found there.
    throw new LlmResponseError(`the model's answer does not match the schema: ${ajv.errorsText(validate.errors, { dataVar: 'answer' })}${cutOff}`, result.content);
  }
  return value;
}

/**
 * The JSON object of a structured answer that failed its schema as a whole, so that the
 * members that do conform can still be used; null when the error is not about an
 * answer or the answer is not a JSON object at all.
 */
export function salvageAnswer(error: unknown): Record<string, unknown> | null {
  if (!(error instanceof LlmResponseError) || !error.content) return null;
  try {
    const value: unknown = JSON.parse(withoutCodeFence(error.content));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Servers that ignore `response_format` often wrap JSON in a Markdown fence. */
function withoutCodeFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  return fenced ? fenced[1] : text;
}
