import winston from 'winston';
import { currentContext } from '../context/request-context';

export type Logger = winston.Logger;

/** Stamps every line written inside a request with its request id and tenant. */
const workContext = winston.format((info) => {
  const context = currentContext();
  if (context?.requestId && info.request_id === undefined) info.request_id = context.requestId;
  if (context?.tenant && info.tenant === undefined) info.tenant = context.tenant.slug;
  return info;
});

export interface LoggerOptions {
  level: string;
  format: 'json' | 'pretty';
  /** Extra transports (the test kit captures lines with one). */
  transports?: winston.transport[];
}

export function createRootLogger(options: LoggerOptions): Logger {
  const format =
    options.format === 'pretty'
      ? winston.format.combine(workContext(), winston.format.timestamp(), winston.format.colorize(), winston.format.simple())
      : winston.format.combine(workContext(), winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json());
  return winston.createLogger({
    level: options.level,
    format,
    transports: options.transports ?? [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}
