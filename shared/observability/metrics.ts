import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from '#shared/observability/logger';

/**
 * createPet's business metric, and only it: the one function that needs Powertools Metrics loads
 * it. Errors by code are counted from the functions' log lines by metric filters
 * (infra/constructs/monitoring.ts), and Lambda's and API Gateway's own metrics count invocations,
 * latency and throttles, so the other functions emit no EMF and load none of this.
 */

/** CloudWatch namespace of the service's metrics: PetsCreated (EMF) and those the stack's log filters make. */
export const METRICS_NAMESPACE = 'PetStore';

/** Shared with the stack's dashboard. */
export const DIMENSION = { service: 'service', stage: 'stage' } as const;

export const METRIC = { petsCreated: 'PetsCreated' } as const;

export interface PetMetrics {
  /** One PetsCreated point, published at once (an EMF line on stdout). */
  countPetCreated(): void;
}

/**
 * PetsCreated as a CloudWatch embedded metric format (EMF) line, through Powertools; in Lambda,
 * CloudWatch turns it into a metric. Staging and production may share an account and region, so
 * every point carries the stage when there is one. No cold-start point: Lambda's own `Init
 * Duration` already tells each cold start.
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
