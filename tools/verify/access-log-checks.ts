import {
  type CloudWatchLogsClient,
  DescribeLogStreamsCommand,
  GetLogEventsCommand,
  paginateFilterLogEvents,
} from '@aws-sdk/client-cloudwatch-logs';
import { ACCESS_LOG_FIELDS } from '#infra/access-log';
import { OUTPUT } from '#infra/outputs';
import { POWERTOOLS } from '#shared/observability/logger';
import { newRequestId } from '#tools/lambda/events';
import {
  type CheckResult,
  check,
  type Finding,
  fail,
  list,
  outputOf,
  parseJsonObject,
  pass,
  skip,
  type VerifyContext,
} from '#tools/verify/check';
import { rowNamed } from '#tools/verify/ledger';

/** The access log's last lines, and the ledger rows they confirm. */

/** The ledger rows a read-only call confirms, by the words their "Behaviour" starts with. */
export const CONFIRMED_ROWS = {
  authorizerRequestId: "The authorizer's invocation has a Lambda request id of its own",
  requestIdShape: 'Its shape: 16 base64 characters',
} as const;

type AccessLogLine = Readonly<Record<string, unknown>>;

/** The last lines API Gateway wrote to the stage's access log, newest stream first. */
const lastAccessLogLines = async (logs: CloudWatchLogsClient, logGroupName: string): Promise<string[]> => {
  const { logStreams = [] } = await logs.send(
    new DescribeLogStreamsCommand({ logGroupName, orderBy: 'LastEventTime', descending: true, limit: 1 }),
  );
  const [stream] = logStreams;
  if (!stream?.logStreamName) return [];
  const { events = [] } = await logs.send(
    new GetLogEventsCommand({
      logGroupName,
      logStreamName: stream.logStreamName,
      startFromHead: false,
      limit: 20,
    }),
  );
  return events.flatMap((event) => (event.message === undefined ? [] : [event.message.trim()]));
};

const DAY_MS = 86_400_000;

const excerpt = (text: string): string => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** The fields of the stack's access log format: the saved queries (infra/constructs/log-queries.ts) read them. */
const ACCESS_FIELDS = Object.keys(ACCESS_LOG_FIELDS);

const FIX_FORMAT = 'fix the format (ACCESS_LOG_FIELDS, infra/access-log.ts)';

const accessLog = (group: string, texts: readonly string[], lines: readonly AccessLogLine[]): Finding => {
  if (texts.length === 0)
    return fail(`${group} holds no line yet: run npm run smoke against the stage, then verify again`);
  const notJson = texts.find((text) => !parseJsonObject(text));
  if (notJson !== undefined)
    return fail(
      `a line of ${group} is not a JSON object: ${excerpt(notJson)}; the saved queries cannot read it: ${FIX_FORMAT}`,
    );
  const missing = ACCESS_FIELDS.filter((field) => lines.some((line) => !(field in line)));
  const latency = 'responseLatency' satisfies keyof typeof ACCESS_LOG_FIELDS;
  const notNumbers = lines.filter(
    (line) => typeof line[latency] === 'string' && !/^(\d+|-)$/.test(line[latency]),
  );
  if (missing.length > 0 || notNumbers.length > 0)
    return fail(
      `${missing.length ? `lines of ${group} lack ${list(missing)}` : `${notNumbers.length} lines' ${latency} is not a number`}: the saved queries read them; ${FIX_FORMAT}`,
    );
  return pass(
    `the last ${lines.length} lines of ${group} are JSON objects with every field the saved queries read (${list(ACCESS_FIELDS)})`,
  );
};

/** What API Gateway's `$context.extendedRequestId` looks like: as long as the local gateway's, ending in `=`. */
const REQUEST_ID_SHAPE = new RegExp(`^[A-Za-z0-9+/]{${newRequestId().length - 1}}=$`);

const NO_LINE = skip('no access log line to read (above)');

const requestIdShape = (lines: readonly AccessLogLine[]): Finding => {
  if (lines.length === 0) return NO_LINE;
  const odd = lines.map((line) => String(line.requestId)).filter((id) => !REQUEST_ID_SHAPE.test(id));
  return odd.length === 0
    ? pass(
        `the ${lines.length} request ids of the access log have that shape: mark the row documented by this run`,
      )
    : fail(
        `request ids ${list(odd.slice(0, 3))} do not: change the local gateway's newRequestId (tools/lambda/events.ts) and the row`,
      );
};

const authorizerRequestId = async (
  { clients, stack }: VerifyContext,
  lines: readonly AccessLogLine[],
): Promise<Finding> => {
  if (lines.length === 0) return NO_LINE;
  const field = 'authorizerRequestId' satisfies keyof typeof ACCESS_LOG_FIELDS;
  const id = [...lines]
    .reverse()
    .map((line) => line[field])
    .find((value): value is string => typeof value === 'string' && value !== '' && value !== '-');
  if (!id)
    return skip(
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
    ? pass(
        `the authorizer's lines of ${id} carry it as ${POWERTOOLS.invocation}: mark the row documented by this run`,
      )
    : fail(
        `no authorizer line has ${POWERTOOLS.invocation} ${id}: the saved query "The authorizer call of a request" finds nothing; fix the row and the query (infra/constructs/log-queries.ts)`,
      );
};

export const accessLogAndLedger = check('access log', async (context) => {
  const group = outputOf(context.stack, OUTPUT.accessLogs);
  const texts = await lastAccessLogLines(context.clients.logs, group);
  const parsed = texts.map(parseJsonObject);
  // A line that is not JSON fails the access log, and leaves the ledger rows nothing to read.
  const lines = parsed.every((line) => line !== undefined) ? parsed : [];
  const row = (start: string, finding: Finding): CheckResult => ({
    name: `ledger: ${rowNamed(start).behaviour}`,
    ...finding,
  });
  return [
    { name: 'access log', ...accessLog(group, texts, lines) },
    row(CONFIRMED_ROWS.authorizerRequestId, await authorizerRequestId(context, lines)),
    row(CONFIRMED_ROWS.requestIdShape, requestIdShape(lines)),
  ];
});
