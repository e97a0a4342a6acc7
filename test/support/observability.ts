import { createLogger } from '#shared/observability/logger';
import { NO_METRICS } from '#shared/observability/metrics';
import type { Observability } from '#shared/observability/observability';

/** What handlers under test report through: no log lines, no metrics. */
export const silent = (): Observability => ({
  logger: createLogger({ logLevel: 'SILENT' }),
  metrics: NO_METRICS,
});
