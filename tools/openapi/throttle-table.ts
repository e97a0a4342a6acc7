import { STAGE_NAMES } from '#infra/stage-names';
import { STAGE_DEFAULTS, type StageConfig } from '#infra/stages';
import { STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import type { Operation } from '#shared/operations/operation';
import { resourcePathsOf, writesData } from '#shared/operations/routes';
import { generatedTable } from '#tools/openapi/operations-table';

/** What a function invocation takes, for the concurrency estimate (BENCHMARKS.md's warm figures, rounded up). */
const INVOCATION_MS = 25;
/** Write units of a create, change or removal, table and status index together. */
const WCU_PER_WRITE = 2;
/** API Gateway REST API, US dollars per million requests (docs/costs.md). */
const PRICE_PER_MILLION_REQUESTS = 3.5;

/** A stage at every method's limit: each operation, `ANY` (405) and `OPTIONS` mock counts.
 * "Throttle requests to your REST APIs for better throughput in API Gateway" */
export const throttleBounds = (
  stage: Pick<StageConfig, 'throttling' | 'writeThrottling'>,
  operations: readonly Operation[],
) => {
  const writes = operations.filter(writesData);
  const mocks = 2 * resourcePathsOf(operations).length;
  const functionRate =
    (operations.length - writes.length) * stage.throttling.rateLimit +
    writes.length * stage.writeThrottling.rateLimit;
  return {
    methods: operations.length + mocks,
    stageRate: functionRate + mocks * stage.throttling.rateLimit,
    functionRate,
    writeRate: writes.length * stage.writeThrottling.rateLimit,
    writesBusiestSecond: writes.length * (stage.writeThrottling.rateLimit + stage.writeThrottling.burstLimit),
  };
};

const figure = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits });

/** The table of the pipeline stages' bounds, every method at its limit, and what follows from them. */
export const throttleTable = (operations: readonly Operation[]): string => {
  const bounds = STAGE_NAMES.map((name) => throttleBounds(STAGE_DEFAULTS[name], operations));
  const row = (label: string, value: (b: ReturnType<typeof throttleBounds>) => string) =>
    `| ${label} | ${bounds.map(value).join(' | ')} |`;
  return [
    `| Every method at its limit | ${STAGE_NAMES.join(' | ')} |`,
    `|---|${STAGE_NAMES.map(() => '---:').join('|')}|`,
    row('Methods, each with its own bucket', (b) => figure(b.methods)),
    row('Requests a second the stage admits', (b) => figure(b.stageRate)),
    row('… a day, and its price at API Gateway alone', (b) => {
      const perDay = b.stageRate * 86_400;
      return `${figure(perDay / 1e6, 1)} million, $${figure((perDay / 1e6) * PRICE_PER_MILLION_REQUESTS)}`;
    }),
    row("Requests a second to the operations' functions", (b) => figure(b.functionRate)),
    row(`Invocations at once, at ${INVOCATION_MS} ms each`, (b) =>
      figure(Math.ceil((b.functionRate * INVOCATION_MS) / 1_000)),
    ),
    row(
      `Writes a second, and their write units (${WCU_PER_WRITE} each)`,
      (b) => `${figure(b.writeRate)}, ${figure(b.writeRate * WCU_PER_WRITE)}`,
    ),
    row(
      `Writes in the busiest second (rate + burst), and the units on each of a status's ${STATUS_SHARDS} keys`,
      (b) => {
        const perKey = b.writesBusiestSecond / STATUS_SHARDS;
        return `${figure(b.writesBusiestSecond)}, ${figure(perKey)} WCU/s (${Math.round(perKey / 10)} % of 1,000)`;
      },
    ),
  ].join('\n');
};

export const THROTTLE_TABLE = generatedTable(
  'docs/deploy.md',
  '<!-- throttle: made by npm run openapi from OPERATIONS and the stages -->',
  throttleTable,
);
