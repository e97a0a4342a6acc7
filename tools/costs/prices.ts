/**
 * AWS's list prices the cost model reads, US East (N. Virginia), in US dollars, each from the
 * AWS pricing page named beside it, as last read there (docs/costs.md, "Prices", says when).
 * docs/costs.md's prices table is made from this list (`npm run costs`).
 */

export interface Price {
  /** As the table names it. */
  readonly label: string;
  readonly usd: number;
  /** The AWS pricing page, by its title. */
  readonly source: string;
}

export const PRICES = {
  apiGatewayPerMillion: {
    label: 'API Gateway REST API, per million requests (first 333 million a month)',
    usd: 3.5,
    source: 'Amazon API Gateway pricing',
  },
  lambdaPerMillion: { label: 'Lambda, per million requests', usd: 0.2, source: 'AWS Lambda pricing' },
  lambdaArmGbSecond: {
    label: 'Lambda on Arm (arm64), per GB-second',
    usd: 0.0000133334,
    source: 'AWS Lambda pricing',
  },
  dynamoDbReadPerMillion: {
    label: 'DynamoDB on-demand, per million read request units',
    usd: 0.125,
    source: 'Amazon DynamoDB pricing, on-demand capacity',
  },
  dynamoDbWritePerMillion: {
    label: 'DynamoDB on-demand, per million write request units',
    usd: 0.625,
    source: 'Amazon DynamoDB pricing, on-demand capacity',
  },
  dynamoDbStorageGbMonth: {
    label: 'DynamoDB storage, per GB-month (the first 25 GB free)',
    usd: 0.25,
    source: 'Amazon DynamoDB pricing, on-demand capacity',
  },
  dynamoDbBackupGbMonth: {
    label: 'DynamoDB point-in-time recovery, per GB-month',
    usd: 0.2,
    source: 'Amazon DynamoDB pricing, on-demand capacity',
  },
  logsIngestionGb: {
    label: 'CloudWatch Logs ingestion, per GB',
    usd: 0.5,
    source: 'Amazon CloudWatch pricing, logs',
  },
  logsStorageGbMonth: {
    label: 'CloudWatch Logs storage, per GB-month (compressed)',
    usd: 0.03,
    source: 'Amazon CloudWatch pricing, logs',
  },
  alarmMetricMonth: {
    label: 'CloudWatch alarm, per alarm metric a month (standard resolution)',
    usd: 0.1,
    source: 'Amazon CloudWatch pricing, alarms',
  },
  dashboardMonth: {
    label: 'CloudWatch dashboard, a month',
    usd: 3,
    source: 'Amazon CloudWatch pricing, dashboards',
  },
  customMetricMonth: {
    label: 'CloudWatch custom metric, a month',
    usd: 0.3,
    source: 'Amazon CloudWatch pricing, metrics',
  },
  kmsKeyMonth: {
    label: 'KMS customer managed key, a month',
    usd: 1,
    source: 'AWS Key Management Service pricing',
  },
  kmsPer10kRequests: {
    label: 'KMS, per 10,000 requests',
    usd: 0.03,
    source: 'AWS Key Management Service pricing',
  },
  xrayPerMillionTraces: { label: 'X-Ray, per million traces recorded', usd: 5, source: 'AWS X-Ray pricing' },
  wafWebAclMonth: { label: 'AWS WAF web ACL, a month', usd: 5, source: 'AWS WAF pricing' },
  wafRuleMonth: {
    label: 'AWS WAF rule, a month (a managed rule group counts as one)',
    usd: 1,
    source: 'AWS WAF pricing',
  },
  wafPerMillion: { label: 'AWS WAF, per million requests inspected', usd: 0.6, source: 'AWS WAF pricing' },
  eventBridgeEventsPerMillion: {
    label: 'EventBridge custom events, per million (each 64 KB of an entry counts as one)',
    usd: 1,
    source: 'Amazon EventBridge pricing',
  },
  eventBridgeArchivedGb: {
    label: 'EventBridge archive, per GB of events archived',
    usd: 0.1,
    source: 'Amazon EventBridge pricing',
  },
  eventBridgeArchiveGbMonth: {
    label: 'EventBridge archive storage, per GB-month',
    usd: 0.023,
    source: 'Amazon EventBridge pricing',
  },
} as const satisfies Record<string, Price>;

export type PriceName = keyof typeof PRICES;

/** The prices table of docs/costs.md. */
export const pricesTable = (): string =>
  [
    "| Price (US East, N. Virginia) | USD | Source: AWS's public pricing page |",
    '| --- | ---: | --- |',
    ...Object.values(PRICES).map(
      ({ label, usd, source }) => `| ${label} | ${usd.toFixed(Math.max(2, decimals(usd)))} | ${source} |`,
    ),
  ].join('\n');

/** The decimals a price is written with: as many as it has. */
const decimals = (usd: number): number => (String(usd).split('.')[1] ?? '').length;
