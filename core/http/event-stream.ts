import type { Response } from 'express';
import type { Logger } from '../logging/logger';

/**
 * A route's answer as Server-Sent Events (text/event-stream) rather than one JSON body:
 * the handler checks what it can refuse with a status first (404, 409, ...), then
 * returns an EventStream whose `run` emits events as the work goes on and resolves to
 * the final value. The kernel writes the headers, runs it, and ends the response; an
 * error thrown by `run` after the headers are out becomes an `error` event with the
 * error envelope, since the status can no longer change.
 *
 * Routes that can stream declare `streams` (route.ts) so the OpenAPI document lists
 * text/event-stream beside JSON.
 */
export interface EventStreamWriter {
  /** Writes `event: <name>` and `data: <json>`; false once the client has gone. */
  emit(event: string, data: unknown): boolean;
  /** Aborted when the client disconnects: work that only feeds the client may stop. */
  readonly signal: AbortSignal;
}

export class EventStream<T = unknown> {
  private readonly settledHooks: Array<(outcome: { value: T } | { error: unknown }) => unknown> = [];

  constructor(
    /** Resolves to the stream's final value (the route's JSON answer, for a replay under Idempotency-Key). */
    private readonly run: (writer: EventStreamWriter) => Promise<T>,
  ) {}

  /** Called once `run` settled, before the response ends (the idempotency store keeps the final value). */
  onSettled(hook: (outcome: { value: T } | { error: unknown }) => unknown): void {
    this.settledHooks.push(hook);
  }

  /** Writes the stream to `res` (express-app.ts `send`). */
  async pipe(res: Response, logger: Logger, errorOf: (error: unknown) => { status: number; body: unknown } | undefined): Promise<void> {
    const controller = new AbortController();
    // Only a client gone before the end stops the work (an abort after a finished stream would only cost its DOMException).
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      // Proxies (nginx) would otherwise buffer the events until the end.
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    res.flushHeaders();
    const writer: EventStreamWriter = {
      signal: controller.signal,
      emit(event, data) {
        if (res.writableEnded || res.destroyed) return false;
        return res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`) || !res.destroyed;
      },
    };
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await this.run(writer) };
    } catch (error) {
      outcome = { error };
      const known = errorOf(error);
      if (!known || known.status >= 500) logger.error('event stream failed', { error: (error as Error)?.stack ?? String(error) });
      writer.emit('error', known ? known.body : { success: false, message: 'Internal server error' });
    }
    // Before the end: a client that retries as soon as the stream ends finds the outcome kept (the idempotency store).
    for (const hook of this.settledHooks) {
      try {
        await hook(outcome);
      } catch (error) {
        logger.warn('an event stream hook failed', { error: String(error) });
      }
    }
    if (!res.writableEnded) res.end();
  }
}

/** Whether the client asked for Server-Sent Events rather than JSON. */
export function wantsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);
}
