import { ValidationError, type FieldErrors } from '../../../core';

/** Collects every problem of a request, so one 422 names them all with their paths. */
export class FieldErrorList {
  readonly errors: FieldErrors = {};

  add(path: string, message: string): void {
    (this.errors[path] ??= []).push(message);
  }

  throwIfAny(): void {
    if (Object.keys(this.errors).length > 0) throw new ValidationError(this.errors);
  }
}

/** `join('guard_rules.1', 'destination')` -> `guard_rules.1.destination`; an empty prefix adds nothing. */
export const join = (prefix: string, member: string) => (prefix ? `${prefix}.${member}` : member);
