/**
 * What docs/deploy.md says each stage is, written out: the template tests hold the synthesized
 * stacks to these numbers, not to values read back from infra/stages.ts, so a wrong number in
 * the stage configuration fails a test instead of passing through it.
 */
export const DOCUMENTED_STAGES = {
  staging: {
    throttling: { rateLimit: 20, burstLimit: 40 },
    writeThrottling: { rateLimit: 20, burstLimit: 40 },
    authorizerCacheTtlSeconds: 30,
    logRetentionDays: 7,
    logLevel: 'DEBUG',
    allowedOrigins: ['http://localhost:5173'],
    plans: {
      trial: { rateLimit: 1, burstLimit: 2, quota: { limit: 100, period: 'DAY' } },
      standard: { rateLimit: 5, burstLimit: 10, quota: { limit: 5_000, period: 'DAY' } },
      partner: { rateLimit: 10, burstLimit: 20, quota: { limit: 100_000, period: 'MONTH' } },
      smoke: { rateLimit: 10, burstLimit: 20, quota: { limit: 5_000, period: 'DAY' } },
    },
    defaultPlan: 'standard',
    firewall: { enabled: true, requestsPerIp: 3_000, windowSeconds: 300 },
    alarms: {
      serverErrorRate: 0.05,
      p99LatencyMs: 3_000,
      functionErrors: 5,
      functionThrottles: 5,
      authorizerFailures: 5,
      tableThrottles: 10,
      eventsIteratorAgeMs: 300_000,
      publisherErrors: 5,
      eventFailuresQueued: 1,
    },
    events: { archiveRetentionDays: 7 },
  },
  production: {
    throttling: { rateLimit: 2_000, burstLimit: 4_000 },
    writeThrottling: { rateLimit: 1_000, burstLimit: 1_000 },
    authorizerCacheTtlSeconds: 60,
    logRetentionDays: 90,
    logLevel: 'INFO',
    allowedOrigins: [],
    plans: {
      standard: { rateLimit: 10, burstLimit: 20, quota: { limit: 10_000, period: 'DAY' } },
      partner: { rateLimit: 50, burstLimit: 100, quota: { limit: 1_000_000, period: 'MONTH' } },
      smoke: { rateLimit: 5, burstLimit: 10, quota: { limit: 2_000, period: 'DAY' } },
    },
    defaultPlan: 'standard',
    firewall: { enabled: true, requestsPerIp: 20_000, windowSeconds: 300 },
    alarms: {
      serverErrorRate: 0.01,
      p99LatencyMs: 2_000,
      functionErrors: 1,
      functionThrottles: 1,
      authorizerFailures: 1,
      tableThrottles: 1,
      eventsIteratorAgeMs: 120_000,
      publisherErrors: 1,
      eventFailuresQueued: 1,
    },
    events: { archiveRetentionDays: 365 },
  },
} as const;

/** A developer's stage keeps its events a day (docs/deploy.md). */
export const DOCUMENTED_DEV_ARCHIVE_RETENTION_DAYS = 1;

/** Every alarm: a 5-minute period, 2 breaching periods out of the last 3, no data is fine. */
export const DOCUMENTED_ALARM_EVALUATION = {
  Period: 300,
  EvaluationPeriods: 3,
  DatapointsToAlarm: 2,
  TreatMissingData: 'notBreaching',
} as const;

/**
 * What rolls back a deployment, per stage (docs/operate.md, "Gradual deployments"): how CodeDeploy
 * shifts traffic, and the thresholds of the alarms on each function's `live` alias, evaluated
 * over 1-minute periods, 2 breaching out of the last 3.
 */
export const DOCUMENTED_DEPLOYMENTS = {
  staging: {
    config: 'CodeDeployDefault.LambdaAllAtOnce',
    functionErrors: 5,
    functionServerErrors: 5,
    functionP99DurationMs: 2_000,
    authorizerFailures: 5,
    publisherErrors: 5,
  },
  production: {
    config: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
    functionErrors: 1,
    functionServerErrors: 1,
    functionP99DurationMs: 1_000,
    authorizerFailures: 1,
    publisherErrors: 1,
  },
} as const;

export const DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION = {
  Period: 60,
  EvaluationPeriods: 3,
  DatapointsToAlarm: 2,
  TreatMissingData: 'notBreaching',
} as const;
