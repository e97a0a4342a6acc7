import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { QueryDefinition, QueryString, type QueryStringProps } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ACCESS_LOG_FIELDS } from '#infra/constructs/pet-store-api';
import { REQUEST_ID_LOG_KEY } from '#shared/observability/logger';

/** A field of the API's access log, by its name (checked against ACCESS_LOG_FIELDS). */
const access = (name: keyof typeof ACCESS_LOG_FIELDS): string => name;

/** What Powertools writes on every line of a function: its level, and the invocation's Lambda request id. */
export const POWERTOOLS = { level: 'level', message: 'message', invocation: 'function_request_id' } as const;

/** "This request", in the access log (`requestId`) and in the functions' lines (REQUEST_ID_LOG_KEY). */
const isRequest = (id: string): string =>
  `${access('requestId')} = "${id}" or ${REQUEST_ID_LOG_KEY} = "${id}"`;

export const PLACEHOLDER = {
  requestId: 'PASTE-THE-REQUEST-ID',
  authorizerRequestId: 'PASTE-THE-AUTHORIZER-REQUEST-ID',
} as const;

export interface LogQueriesProps {
  /** The console lists `<prefix>/…` as a folder (the stack's name). */
  readonly prefix: string;
  readonly accessLogs: ILogGroup;
  /** By function name. */
  readonly handlerLogs: Readonly<Record<string, ILogGroup>>;
  /**
   * The authorizer's log group: its lines carry no request id (a TOKEN event has none), only its
   * invocation's Lambda request id, which the access log names as `authorizerRequestId`.
   */
  readonly authorizerLogs: ILogGroup;
}

/**
 * Saved CloudWatch Logs Insights queries of one stage: everything a request logged (by the
 * `requestId` of its Error body), the authorizer's lines of that request (by the access log's
 * `authorizerRequestId`), errors by code, the slowest requests. Saved queries take no parameters:
 * the first two hold a placeholder to replace.
 */
export class LogQueries extends Construct {
  constructor(scope: Construct, id: string, props: LogQueriesProps) {
    super(scope, id);
    const { prefix, accessLogs, authorizerLogs } = props;
    const handlerLogs = Object.values(props.handlerLogs);
    const query = (id: string, name: string, logGroups: ILogGroup[], queryString: QueryStringProps) =>
      new QueryDefinition(this, id, {
        queryDefinitionName: `${prefix}/${name}`,
        logGroups,
        queryString: new QueryString(queryString),
      });

    query('OneRequest', 'One request by requestId', [accessLogs, ...handlerLogs], {
      // The columns that tell a request's story, from the access log and the functions' lines alike.
      fields: [
        '@timestamp',
        '@log',
        access('method'),
        access('resourcePath'),
        access('status'),
        access('authorizerRequestId'),
        access('errorType'),
        access('errorMessage'),
        POWERTOOLS.level,
        POWERTOOLS.message,
        'code',
        'error.message',
        '@message',
      ],
      filterStatements: [isRequest(PLACEHOLDER.requestId)],
      sort: '@timestamp asc',
      limit: 200,
    });

    // The authorizer's lines of one request: its invocation, by the access log's `authorizerRequestId`.
    query('AuthorizerCall', 'The authorizer call of a request by authorizerRequestId', [authorizerLogs], {
      fields: [
        '@timestamp',
        POWERTOOLS.level,
        POWERTOOLS.message,
        'keyId',
        'plan',
        'error.message',
        '@message',
      ],
      filterStatements: [`${POWERTOOLS.invocation} = "${PLACEHOLDER.authorizerRequestId}"`],
      sort: '@timestamp asc',
      limit: 200,
    });

    // Over the range the console is set to (an hour by default): the codes the functions answered
    // with (their log lines, EMF lines left out) and the gateway responses API Gateway answered
    // with itself (the access log's `errorType`, `-` for a function's answer).
    const errorType = access('errorType');
    query('ErrorsByCode', 'Errors by code (last hour)', [accessLogs, ...handlerLogs], {
      fields: [`coalesce(code, ${errorType}) as error`],
      filterStatements: [
        `(ispresent(${POWERTOOLS.level}) and ispresent(code)) or (ispresent(${errorType}) and ${errorType} != "-")`,
      ],
      statsStatements: ['count(*) as requests by error'],
      sort: 'requests desc',
    });

    // As the client saw them (API Gateway's latency, authorizer included).
    query('SlowestRequests', 'Slowest requests', [accessLogs], {
      // The access log writes every value as a string: max() reads the latency as a number.
      statsStatements: [
        `max(${access('responseLatency')}) as latencyMs by ${access('requestId')}, ${access('method')}, ${access('resourcePath')}, ${access('status')}`,
      ],
      sort: 'latencyMs desc',
      limit: 25,
    });
  }
}
