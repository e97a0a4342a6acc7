import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from '#shared/observability/logger';

/**
 * createPet's business metric, and only it: errors are counted from log lines by metric filters
 * (infra/constructs/monitoring.ts), the rest by Lambda and API Gateway, so no other function loads this.
 */

/** PetsCreated (EMF) and the stack's log filters' metrics. */
export const METRICS_NAMESPACE = 'PetStore';

/** Shared with the stack's dashboard. */
export const DIMENSION = { service: 'service', stage: 'stage' } as const;

export const METRIC = { petsCreated: 'PetsCreated' } as const;

export interface PetMetrics {
  /** Published at once (an EMF line on stdout). */
  countPetCreated(): void;
}

/**
 * PetsCreated through Powertools (EMF). Stages may share an account and region, so every point
 * carries the stage. No cold-start point: Lambda's `Init Duration` already tells each.
 */
export const createPetMetrics = (options: { readonly stage?: string } = {}): PetMetrics => {
  const metrics = new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    ...(options.stage ? { defaultDimensions: { [DIMENSION.stage]: options.stage } } : {}),
  });
  return {
    countPetCreated: () => {
      metrics.addMetric(METRIC.petsCreated, MetricUnit.Count, 1);
      metrics.publishStoredMetrics();
    },
  };
};

/** No metrics at all: the local server, which has no CloudWatch to read them. */
export const NO_METRICS: PetMetrics = { countPetCreated: () => undefined };
