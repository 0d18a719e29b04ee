import type { Finding } from './fuzz-runner';

/**
 * Findings of the fuzzer not fixed yet, each with the issue that tracks it. A finding
 * listed here is still sent on every run and printed, never dropped; the test fails on
 * anything not listed, and warns about entries nothing matched any more (remove them
 * once fixed). Keep entries narrow: an operation and a problem, not a whole route family.
 */
export interface KnownFailure {
  /** `METHOD /path/:param`, as findings name operations; a pattern for a kernel-wide finding every operation shares. */
  operation: string | RegExp;
  /** Matches the finding's problem (and label, when given). */
  problem: RegExp;
  label?: RegExp;
  /** Where it is tracked, e.g. `Switchboard issue 22, item 12`. */
  issue: string;
  why: string;
}

// Both findings of the first runs (gzip that is not gzip: 500; `?page=1e308`: 500) are fixed in core, with tests in test/core/http/validation.test.ts.
export const KNOWN_FAILURES: KnownFailure[] = [];

export function isKnown(finding: Finding): KnownFailure | undefined {
  return KNOWN_FAILURES.find(
    (known) => (typeof known.operation === 'string' ? known.operation === finding.operation : known.operation.test(finding.operation)) && known.problem.test(finding.problem) && (!known.label || known.label.test(finding.label)),
  );
}
