import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '#shared/config';

export const SERVICE_NAME = 'pet-store';

export type { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs with the Lambda request id on every line. Without `logLevel`, Powertools
 * takes it from `POWERTOOLS_LOG_LEVEL` (set per stage by the stack). Nothing logged anywhere
 * holds an API key or a request body.
 */
export const createLogger = (options: { readonly logLevel?: LogLevel } = {}): Logger =>
  new Logger({ serviceName: SERVICE_NAME, ...(options.logLevel ? { logLevel: options.logLevel } : {}) });
