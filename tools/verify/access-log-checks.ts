import {
  DescribeLogStreamsCommand,
  GetLogEventsCommand,
  paginateFilterLogEvents,
} from '@aws-sdk/client-cloudwatch-logs';
import { POWERTOOLS } from '#infra/constructs/log-queries';
import { ACCESS_LOG_FIELDS } from '#infra/constructs/pet-store-api';
import { OUTPUT } from '#infra/outputs';
import { newRequestId } from '#tools/lambda/events';
import {
  type CheckResult,
  guarded,
  list,
  outputOf,
  parseJsonObject,
  result,
  type VerifyContext,
} from '#tools/verify/check';
import { type LedgerRow, rowNamed } from '#tools/verify/ledger';

/** The access log's last lines, and the ledger rows they confirm. */

/** How many of the access log's last lines are read. */
export const ACCESS_LOG_LINES = 20;

/** The ledger rows a read-only call confirms, by the words their "Behaviour" starts with. */
export const CONFIRMED_ROWS = {
  authorizerRequestId: "The authorizer's invocation has a Lambda request id of its own",
  requestIdShape: 'Its shape: 16 base64 characters',
} as const;

type AccessLogLine = Readonly<Record<string, unknown>>;

/** The last lines API Gateway wrote to the stage's access log, newest stream first. */
const lastAccessLogLines = async ({ clients, stack }: VerifyContext): Promise<string[]> => {
  const logGroupName = outputOf(stack, OUTPUT.accessLogs);
  const { logStreams = [] } = await clients.logs.send(
    new DescribeLogStreamsCommand({ logGroupName, orderBy: 'LastEventTime', descending: true, limit: 1 }),
  );
  const [stream] = logStreams;
  if (!stream?.logStreamName) return [];
  const { events = [] } = await clients.logs.send(
    new GetLogEventsCommand({
      logGroupName,
      logStreamName: stream.logStreamName,
      startFromHead: false,
      limit: ACCESS_LOG_LINES,
    }),
  );
  return events.flatMap((event) => (event.message === undefined ? [] : [event.message.trim()]));
};

const DAY_MS = 86_400_000;

const excerpt = (text: string): string => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** The fields of the stack's access log format: the saved queries (infra/constructs/log-queries.ts) read them. */
const ACCESS_FIELDS = Object.keys(ACCESS_LOG_FIELDS);

const accessLogCheck = async (
  context: VerifyContext,
): Promise<{ results: CheckResult[]; lines: AccessLogLine[] }> => {
  const group = outputOf(context.stack, OUTPUT.accessLogs);
  const texts = await lastAccessLogLines(context);
  if (texts.length === 0)
    return {
      results: [
        result(
          'fail',
          'access log',
          `${group} holds no line yet: run npm run smoke against the stage, then verify again`,
        ),
      ],
      lines: [],
    };
  const lines: AccessLogLine[] = [];
  for (const text of texts) {
    const line = parseJsonObject(text);
    if (!line)
      return {
        results: [
          result(
            'fail',
            'access log',
            `a line of ${group} is not a JSON object: ${excerpt(text)}; the saved queries cannot read it: fix the format (ACCESS_LOG_FIELDS, infra/constructs/pet-store-api.ts)`,
          ),
        ],
        lines: [],
      };
    lines.push(line);
  }
  const missing = ACCESS_FIELDS.filter((field) => lines.some((line) => !(field in line)));
  const latency = 'responseLatency' satisfies keyof typeof ACCESS_LOG_FIELDS;
  const notNumbers = lines.filter(
    (line) => typeof line[latency] === 'string' && !/^(\d+|-)$/.test(line[latency]),
  );
  if (missing.length > 0 || notNumbers.length > 0)
    return {
      results: [
        result(
          'fail',
          'access log',
          `${missing.length ? `lines of ${group} lack ${list(missing)}` : `${notNumbers.length} lines' ${latency} is not a number`}: the saved queries read them; fix the format (ACCESS_LOG_FIELDS, infra/constructs/pet-store-api.ts)`,
        ),
      ],
      lines,
    };
  return {
    results: [
      result(
        'pass',
        'access log',
        `the last ${lines.length} lines of ${group} are JSON objects with every field the saved queries read (${list(ACCESS_FIELDS)})`,
      ),
    ],
    lines,
  };
};

/** What API Gateway's `$context.extendedRequestId` looks like: as long as the local gateway's, ending in `=`. */
const REQUEST_ID_SHAPE = new RegExp(`^[A-Za-z0-9+/]{${newRequestId().length - 1}}=$`);

const requestIdShape = (row: LedgerRow, lines: readonly AccessLogLine[]): CheckResult => {
  const name = `ledger: ${row.behaviour}`;
  if (lines.length === 0) return result('skip', name, 'no access log line to read (above)');
  const odd = lines.map((line) => String(line.requestId)).filter((id) => !REQUEST_ID_SHAPE.test(id));
  return odd.length === 0
    ? result(
        'pass',
        name,
        `the ${lines.length} request ids of the access log have that shape: mark the row documented by this run`,
      )
    : result(
        'fail',
        name,
        `request ids ${list(odd.slice(0, 3))} do not: change the local gateway's newRequestId (tools/lambda/events.ts) and the row`,
      );
};

const authorizerRequestId = async (
  { clients, stack }: VerifyContext,
  row: LedgerRow,
  lines: readonly AccessLogLine[],
): Promise<CheckResult> => {
  const name = `ledger: ${row.behaviour}`;
  if (lines.length === 0) return result('skip', name, 'no access log line to read (above)');
  const field = 'authorizerRequestId' satisfies keyof typeof ACCESS_LOG_FIELDS;
  const id = [...lines]
    .reverse()
    .map((line) => line[field])
    .find((value): value is string => typeof value === 'string' && value !== '' && value !== '-');
  if (!id)
    return result(
      'skip',
      name,
      'no request in the last lines invoked the authorizer (cached decisions): send one with a key unused for the cache TTL, then verify again',
    );
  // A filter reads the group page by page, some pages empty: follow them until the first match.
  let found = false;
  for await (const page of paginateFilterLogEvents(
    { client: clients.logs },
    {
      logGroupName: outputOf(stack, OUTPUT.functionLogs('Authorizer')),
      filterPattern: `{ $.${POWERTOOLS.invocation} = "${id}" }`,
      startTime: Date.now() - DAY_MS,
    },
  )) {
    found = (page.events ?? []).length > 0;
    if (found) break;
  }
  return found
    ? result(
        'pass',
        name,
        `the authorizer's lines of ${id} carry it as ${POWERTOOLS.invocation}: mark the row documented by this run`,
      )
    : result(
        'fail',
        name,
        `no authorizer line has ${POWERTOOLS.invocation} ${id}: the saved query "The authorizer call of a request" finds nothing; fix the row and the query (infra/constructs/log-queries.ts)`,
      );
};

export const accessLogAndLedger = async (context: VerifyContext): Promise<CheckResult[]> => {
  const guardedAccess = guarded('access log', async (ctx) => {
    const { results, lines } = await accessLogCheck(ctx);
    const confirmed = await Promise.all([
      authorizerRequestId(ctx, rowNamed(CONFIRMED_ROWS.authorizerRequestId), lines),
      Promise.resolve(requestIdShape(rowNamed(CONFIRMED_ROWS.requestIdShape), lines)),
    ]);
    return [...results, ...confirmed];
  });
  return guardedAccess(context);
};
