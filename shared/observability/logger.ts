import { Logger } from '@aws-lambda-powertools/logger';

export const SERVICE_NAME = 'pet-store';

/**
 * Structured JSON logs with the Lambda request id on every line. Level from `POWERTOOLS_LOG_LEVEL`
 * (set per stage by the stack). Nothing logged here ever holds an API key or a request body.
 */
export const logger = new Logger({ serviceName: SERVICE_NAME });
