import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  idempotencyKey: string | undefined;
  body: { execution_uuid: string; step_uuid: string; note: string | null };
}

/**
 * The outside service the probe `call` action POSTs to: it records every call as it
 * arrives (so a call whose caller died is still counted) and answers
 * `{received: note, call: n}`, after `delayMs`, or when the test releases it.
 */
export class CallRecorder {
  readonly calls: RecordedCall[] = [];
  delayMs = 0;
  /** While set, answers wait for `release()`. */
  holding = false;
  /** Calls received and not answered yet. */
  inFlight = 0;
  private held: Array<() => void> = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      this.calls.push({ idempotencyKey: req.headers['idempotency-key'] as string | undefined, body });
      this.inFlight++;
      const answer = () => {
        this.inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: body.note, call: this.calls.length }));
      };
      if (this.holding) this.held.push(answer);
      else setTimeout(answer, this.delayMs);
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/calls`;
  }

  release(): void {
    this.holding = false;
    for (const answer of this.held.splice(0)) answer();
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
