import { createLogger, type Logger } from '#shared/observability/logger';
import { NO_METRICS, type PetMetrics } from '#shared/observability/metrics';

/** What handlers under test report through: no log lines, no metrics (createPet's only). */
export const silent = (): { readonly logger: Logger; readonly metrics: PetMetrics } => ({
  logger: createLogger({ logLevel: 'SILENT' }),
  metrics: NO_METRICS,
});
