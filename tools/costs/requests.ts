import { PET_EVENTS, type PetEventName } from '#shared/events/pet-events';
import { exampleEnvelope } from '#tools/asyncapi/build-document';
import { PRICES } from '#tools/costs/prices';

/**
 * What one request costs, in the units measured here: DynamoDB's units as the bench's meter reads
 * them, Lambda's billed duration (BENCHMARKS.md's warm p50, rounded up to the millisecond), and
 * the bytes it writes to CloudWatch Logs. test/integration/cost-model.test.ts measures each on
 * every run and fails when one moves.
 */
export interface MeasuredRequest {
  /** As docs/costs.md's tables name it. */
  readonly label: string;
  readonly units: number;
  readonly unit: 'RCU' | 'WCU';
  readonly ms: number;
  readonly logBytes: number;
  /** The event a write publishes (docs/asyncapi.yaml): a request with one pays for it too. */
  readonly event?: PetEventName;
}

export const MEASURED = {
  list: { label: 'list (`GET /pets`, a page of 20)', units: 0.5, unit: 'RCU', ms: 7, logBytes: 837 },
  get: { label: 'get (`GET /pets/{petId}`)', units: 1, unit: 'RCU', ms: 4, logBytes: 837 },
  create: {
    label: 'create (`POST /pets`)',
    units: 2,
    unit: 'WCU',
    ms: 6,
    logBytes: 1065,
    event: 'PetCreated',
  },
  'create with key': {
    label: 'create with an `Idempotency-Key`',
    units: 4,
    unit: 'WCU',
    ms: 6,
    logBytes: 1065,
    event: 'PetCreated',
  },
  change: {
    label: 'change (`PATCH /pets/{petId}`)',
    units: 3,
    unit: 'WCU',
    ms: 7,
    logBytes: 837,
    event: 'PetChanged',
  },
  remove: {
    label: 'remove (`DELETE /pets/{petId}`)',
    units: 2,
    unit: 'WCU',
    ms: 7,
    logBytes: 837,
    event: 'PetRemoved',
  },
  authorizer: {
    label: 'authorizer call (once per key per cache TTL)',
    units: 1,
    unit: 'RCU',
    ms: 6,
    logBytes: 739,
  },
  /** The publisher uses no table; Lambda's reads of the stream for its mapping are not billed. */
  publisher: {
    label: 'event of a write (the publisher, a batch of one record)',
    units: 0,
    unit: 'RCU',
    ms: 4,
    logBytes: 352,
  },
} as const satisfies Record<string, MeasuredRequest>;

export type RequestName = keyof typeof MEASURED;

/** What no client asks for: the authorizer's call (once per key per cache TTL), and the publisher's (once per write at most). */
const NOT_REQUESTS: readonly RequestName[] = ['authorizer', 'publisher'];

/** An event's bytes as a target receives it: the documents' example (a pet named `Rex`). */
export const eventBytes = (name: PetEventName): number =>
  Buffer.byteLength(JSON.stringify(exampleEnvelope(name)));

/**
 * USD for a million of one event: its PutEvents entry (under 64 KB: one), the publisher's
 * invocation (one per write at most: a busy stream's batch carries many), its duration and log
 * bytes, and its bytes archived.
 */
const eventPerMillion = (name: PetEventName): number => {
  const { ms, logBytes } = MEASURED.publisher;
  return (
    PRICES.eventBridgeEventsPerMillion.usd +
    PRICES.lambdaPerMillion.usd +
    MEMORY_GB * (ms / 1_000) * 1e6 * PRICES.lambdaArmGbSecond.usd +
    ((logBytes * 1e6) / GIB) * PRICES.logsIngestionGb.usd +
    ((eventBytes(name) * 1e6) / GIB) * PRICES.eventBridgeArchivedGb.usd
  );
};

/** Every function's memory (infra/constructs/api-function.ts DEFAULT_MEMORY_MB), in GB. */
export const MEMORY_GB = 0.5;

/** CloudWatch bills logs by the GB of 2^30 bytes. */
export const GIB = 2 ** 30;

/** USD per million of one request, by line; behind the firewall, which inspects every request. */
export const perMillion = (request: MeasuredRequest) => {
  const lines = {
    'API Gateway requests': PRICES.apiGatewayPerMillion.usd,
    'Lambda requests': PRICES.lambdaPerMillion.usd,
    'Lambda duration': MEMORY_GB * (request.ms / 1_000) * 1e6 * PRICES.lambdaArmGbSecond.usd,
    DynamoDB:
      request.units *
      (request.unit === 'RCU' ? PRICES.dynamoDbReadPerMillion.usd : PRICES.dynamoDbWritePerMillion.usd),
    'CloudWatch Logs ingestion': ((request.logBytes * 1e6) / GIB) * PRICES.logsIngestionGb.usd,
    'AWS WAF requests': PRICES.wafPerMillion.usd,
    'Events (PutEvents, publisher, archive)': request.event ? eventPerMillion(request.event) : 0,
  };
  return { ...lines, Total: Object.values(lines).reduce((sum, value) => sum + value, 0) };
};

/** What one authorizer call costs: its Lambda request and duration, its GetItem and its log bytes (no request of its own to API Gateway or the firewall). */
export const authorizerCall = (): number => {
  const lines = perMillion(MEASURED.authorizer);
  return (
    (lines['Lambda requests'] +
      lines['Lambda duration'] +
      lines.DynamoDB +
      lines['CloudWatch Logs ingestion']) /
    1e6
  );
};

const usd = (value: number) => value.toFixed(2);

/** The measured table of docs/costs.md. */
export const measuredTable = (): string =>
  [
    '| Request | DynamoDB | Lambda billed duration | Log bytes |',
    '| --- | --- | --- | --- |',
    ...Object.values(MEASURED).map(
      ({ label, units, unit, ms, logBytes }) => `| ${label} | ${units} ${unit} | ${ms} ms | ${logBytes} |`,
    ),
  ].join('\n');

/** The per-million table of docs/costs.md: every request a client makes (the authorizer's call is not one). */
export const perMillionTable = (): string => {
  const columns = Object.entries(MEASURED).filter(
    ([name]) => !NOT_REQUESTS.includes(name as RequestName),
  ) as [RequestName, MeasuredRequest][];
  const costs = columns.map(([, request]) => perMillion(request));
  const lines = Object.keys(costs[0] ?? {}) as (keyof ReturnType<typeof perMillion>)[];
  return [
    `| USD per million | ${columns.map(([name]) => name).join(' | ')} |`,
    `| --- |${columns.map(() => ' ---: |').join('')}`,
    ...lines.map((line) =>
      line === 'Total'
        ? `| **Total** | ${costs.map((cost) => `**${usd(cost.Total)}**`).join(' | ')} |`
        : `| ${line} | ${costs.map((cost) => usd(cost[line])).join(' | ')} |`,
    ),
  ].join('\n');
};

/** The events' sizes table of docs/costs.md. */
export const eventsTable = (): string =>
  [
    '| Event | Bytes |',
    '| --- | ---: |',
    ...(Object.keys(PET_EVENTS) as PetEventName[]).map((name) => `| ${name} | ${eventBytes(name)} |`),
  ].join('\n');
