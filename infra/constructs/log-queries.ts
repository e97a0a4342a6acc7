import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { QueryDefinition, QueryString, type QueryStringProps } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ACCESS_LOG_FIELDS } from '#infra/access-log';
import { POWERTOOLS, REQUEST_ID_LOG_KEY } from '#shared/observability/logger';

/** Checked against ACCESS_LOG_FIELDS. */
const access = (name: keyof typeof ACCESS_LOG_FIELDS): string => name;

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
  readonly handlerLogs: Readonly<Record<string, ILogGroup>>;
  /** Its lines carry no request id (a TOKEN event has none), only the access log's `authorizerRequestId`. */
  readonly authorizerLogs: ILogGroup;
}

/** Saved Logs Insights queries of one stage; they take no parameters, so some hold a placeholder. */
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

    // Over the console's range: the functions' codes (EMF lines left out) and API Gateway's own
    // answers (`errorType`, `-` for a function's).
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
