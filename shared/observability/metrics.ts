import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type middy from '@middy/core';
import { ENV } from '#shared/config';
import type { ErrorCode } from '#shared/http/error-body';
import { SERVICE_NAME } from '#shared/observability/logger';

/** CloudWatch namespace of the service's business and error metrics (EMF, no API calls). */
export const METRICS_NAMESPACE = 'PetStore';

/** Dimension names, shared with the alarms and dashboard of the stack. */
export const DIMENSION = { service: 'service', stage: 'stage', code: 'code' } as const;

const stage = process.env[ENV.stage]?.trim();

export const metrics = new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: SERVICE_NAME,
  // Staging and production may share an account and region: without the stage their data points
  // would land in one metric. Unset locally, where there is only one.
  ...(stage ? { defaultDimensions: { [DIMENSION.stage]: stage } } : {}),
});

/** Metric names, shared with the alarms and dashboard of the stack. */
export const METRIC = {
  petsCreated: 'PetsCreated',
  errors: 'Errors',
} as const;

export const countPetCreated = (): void => {
  metrics.addMetric(METRIC.petsCreated, MetricUnit.Count, 1);
};

/** One `Errors` data point with its own `code` dimension, apart from the invocation's other metrics. */
export const countError = (code: ErrorCode): void => {
  const single = metrics.singleMetric();
  single.addDimension(DIMENSION.code, code);
  single.addMetric(METRIC.errors, MetricUnit.Count, 1);
};

/**
 * Flushes the invocation's metrics after the handler, success or error, and records the cold
 * start. Unlike Powertools' `logMetrics`, it stays silent when there is nothing to publish (the
 * read-only functions emit only errors, which `countError` publishes at once).
 */
export const publishMetrics = (): middy.MiddlewareObj => {
  const publish = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return {
    before: ({ context }) => {
      metrics.captureColdStartMetric(context.functionName);
    },
    after: publish,
    onError: publish,
  };
};
