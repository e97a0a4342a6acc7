import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type middy from '@middy/core';
import type { ErrorCode } from '#shared/http/error-body';
import { SERVICE_NAME } from '#shared/observability/logger';

/** CloudWatch namespace of the service's business and error metrics (EMF, no API calls). */
export const METRICS_NAMESPACE = 'PetStore';

/** Dimension names, shared with the alarms and dashboard of the stack. */
export const DIMENSION = { service: 'service', stage: 'stage', code: 'code' } as const;

/** Metric names, shared with the alarms and dashboard of the stack. */
export const METRIC = {
  petsCreated: 'PetsCreated',
  errors: 'Errors',
} as const;

/** What the functions report: business events and errors by code. */
export interface ServiceMetrics {
  countPetCreated(): void;
  /** One `Errors` data point with its own `code` dimension. */
  countError(code: ErrorCode): void;
  /** Records the cold start and flushes the invocation's metrics, success or error. */
  middleware(): middy.MiddlewareObj;
}

/**
 * Metrics as CloudWatch embedded metric format (EMF) lines on stdout, through Powertools; in
 * Lambda, CloudWatch turns them into metrics. Staging and production may share an account and
 * region, so every point carries the stage when there is one.
 */
export const createMetrics = (options: { readonly stage?: string } = {}): ServiceMetrics => {
  const metrics = new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    ...(options.stage ? { defaultDimensions: { [DIMENSION.stage]: options.stage } } : {}),
  });
  // Unlike Powertools' `logMetrics`, stays silent when there is nothing to publish (the read-only
  // functions emit only errors, which `countError` publishes at once).
  const publish = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return {
    countPetCreated: () => {
      metrics.addMetric(METRIC.petsCreated, MetricUnit.Count, 1);
    },
    countError: (code) => {
      const single = metrics.singleMetric();
      single.addDimension(DIMENSION.code, code);
      single.addMetric(METRIC.errors, MetricUnit.Count, 1);
    },
    middleware: () => ({
      before: ({ context }) => {
        metrics.captureColdStartMetric(context.functionName);
      },
      after: publish,
      onError: publish,
    }),
  };
};

/** No metrics at all: the local server, which has no CloudWatch to read them. */
export const NO_METRICS: ServiceMetrics = {
  countPetCreated: () => undefined,
  countError: () => undefined,
  middleware: () => ({ before: () => undefined }),
};
