import type { FunctionConfig } from '#shared/config';
import { createLogger, type Logger } from '#shared/observability/logger';
import { createMetrics, NO_METRICS, type ServiceMetrics } from '#shared/observability/metrics';

/** How a function reports: its logger and its metrics. */
export interface Observability {
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
}

/** A function's logger and metrics, as its configuration says. */
export const createObservability = (
  config: Pick<FunctionConfig, 'logLevel' | 'stage' | 'metrics'>,
): Observability => ({
  logger: createLogger(config.logLevel ? { logLevel: config.logLevel } : {}),
  metrics: config.metrics ? createMetrics(config.stage ? { stage: config.stage } : {}) : NO_METRICS,
});
