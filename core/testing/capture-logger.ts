import winston from 'winston';
import Transport from 'winston-transport';
import type { Logger } from '../logging/logger';

/** A winston transport that keeps every line, so a test can read what was logged (and what was not). */
export class CaptureTransport extends Transport {
  constructor(private readonly lines: Array<Record<string, unknown>>) {
    super();
  }

  override log(info: Record<string, unknown>, next: () => void): void {
    this.lines.push(info);
    next();
  }
}

/** A debug-level logger whose lines the test can read. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { logger: winston.createLogger({ level: 'debug', transports: [new CaptureTransport(lines)] }), lines };
}
