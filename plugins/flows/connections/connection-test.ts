import { ValidationError } from '../../../core';
import type { AuthTestContext } from '../app/auth';
import type { FlowAppDefinition } from '../app/flow-app';
import { connectionHttp, type TokenKeeper } from './connection-http';

/** Credentials under test are fresh from the user or the token endpoint: a 401 is their answer, not a reason to refresh. */
const NO_REFRESH: TokenKeeper = { refresh: () => Promise.reject(new Error('the credentials were refused')) };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs the app's connection test on credentials its schema accepted, before anything is
 * stored. It calls the app's service, so the caller holds no database transaction
 * (docs/plugins.md: outbound calls). A refusal, or a test that throws (the service
 * cannot be reached at the given URL, say), is a 422 at `credentials` with the app's
 * message; an app without a test accepts what its schema accepts.
 */
export async function testCredentials(app: FlowAppDefinition, credentials: Record<string, unknown>, base: Omit<AuthTestContext, 'http'>): Promise<void> {
  const auth = app.auth;
  if (!auth?.test) return;
  const http = connectionHttp({ egress: base.egress, auth, connection: { uuid: '', label: 'new connection', credentials }, tokens: NO_REFRESH });
  const context: AuthTestContext = { ...base, http };
  let problem: string | null;
  try {
    const verdict: unknown = await auth.test(credentials, context);
    const answer = (verdict ?? {}) as { valid?: unknown; message?: unknown };
    problem = answer.valid === true ? null : typeof answer.message === 'string' && answer.message !== '' ? answer.message : 'were refused';
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    // The message may quote what the user sent (a URL of the credentials): it goes back to them, not to the log.
    context.logger.warn('connection test threw', { error: error instanceof Error ? error.name : typeof error });
    problem = `could not be tested: ${messageOf(error)}`;
  }
  if (problem !== null) throw new ValidationError({ credentials: [problem] }, `The app "${app.name}" refused the credentials: ${problem}`);
}
