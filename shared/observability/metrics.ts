import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from '#shared/observability/logger';

/** createPet's metric only: errors come from log filters (infra/constructs/monitoring.ts). */

/** PetsCreated (EMF) and the stack's log filters' metrics. */
export const METRICS_NAMESPACE = 'PetStore';

/** Shared with the stack's dashboard. */
export const DIMENSION = { service: 'service', stage: 'stage' } as const;

export const METRIC = { petsCreated: 'PetsCreated' } as const;

export interface PetMetrics {
  /** Published at once (an EMF line on stdout). */
  countPetCreated(): void;
}

/** Every point carries the stage (stages may share an account); no cold-start point: see `Init Duration`. */
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
