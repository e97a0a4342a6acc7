import { Annotations, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  ResponseType,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { authorizer as authorizerContract } from '#functions/authorizer/contract';
import { corsOverrideTemplate, gatewayResponseValue } from '#infra/constructs/cors-templates';
import { acknowledgeApiGatewayInvoke, acknowledgeLogGroupRules } from '#infra/control-tower';
import type { StageConfig } from '#infra/stages';
import {
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_SECONDS,
  gatewayResponseCorsHeaders,
  parseAllowedOrigins,
} from '#shared/http/cors';
import { ERROR_STATUS, errorBody } from '#shared/http/error-body';
import {
  GATEWAY_RESPONSES,
  type GatewayError,
  gatewayHeaders,
  methodNotAllowed,
} from '#shared/http/gateway-responses';
import { STAGE_NAME } from '#shared/http/paths';
import { RESPONSE_HEADERS } from '#shared/http/responses';
import type { Operation } from '#shared/operations/operation';
import { allowedMethodsIn, resourcePathsOf } from '#shared/operations/routes';

export interface PetStoreApiProps {
  readonly stage: StageConfig;
  readonly restApiName: string;
  /** The operations the API serves (their contracts). */
  readonly operations: readonly Operation[];
  /** One function per operation, by operation id. */
  readonly handlers: Readonly<Record<string, IFunction>>;
  /** The TOKEN authorizer (functions/authorizer/). */
  readonly authorizer: IFunction;
}

/**
 * The Error object as an API Gateway mapping template (VTL): the code, message and status of the
 * row, and the request id API Gateway assigned.
 */
export const errorTemplate = (error: GatewayError): string =>
  JSON.stringify({ ...errorBody(error.code, error.message), requestId: '$context.requestId' });

/** Header name as a method response parameter. */
const header = (name: string): string => `method.response.header.${name}`;

/** A static header value as API Gateway writes one: in single quotes. */
const quoted = (value: string): string => `'${value}'`;

/** What a preflight answers with: No Content. */
const PREFLIGHT_STATUS = 204;

/** The CORS headers a mock's template may set, declared (not required) on its method response. */
const corsMethodResponse = (
  origins: readonly string[],
  headers: Readonly<Record<string, string>>,
): Record<string, boolean> =>
  origins.length === 0
    ? {}
    : Object.fromEntries(
        ['Access-Control-Allow-Origin', ...Object.keys(headers)].map((name) => [header(name), false]),
      );

/**
 * Content types whose body the 405 mock accepts (it reads none of it). A request with another one
 * gets API Gateway's own UNSUPPORTED_MEDIA_TYPE answer, which is the Error object too: a mock
 * cannot pass an arbitrary body through without failing on it.
 */
export const MOCK_CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'text/xml',
  'application/octet-stream',
] as const;

/** Headers a mock sets only for an allowed origin (through its template), besides the origin. */
const CORS_ON_ERRORS = { 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', ') } as const;

/** The preflight's answer for an allowed origin, besides the origin itself. */
const preflightCors = (methods: readonly string[]) =>
  ({
    'Access-Control-Allow-Methods': methods.join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  }) as const;

/** A preflight has no body: the headers every answer carries, but `Content-Type`. */
const { 'Content-Type': _noBody, ...PREFLIGHT_HEADERS } = RESPONSE_HEADERS;

/** One JSON line per request; names the key (its id, never the key) and where time went. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    extendedRequestId: AccessLogField.contextExtendedRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    sourceIp: AccessLogField.contextIdentitySourceIp(),
    userAgent: AccessLogField.contextIdentityUserAgent(),
    method: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    path: AccessLogField.contextPath(),
    protocol: AccessLogField.contextProtocol(),
    status: AccessLogField.contextStatus(),
    responseLength: AccessLogField.contextResponseLength(),
    responseLatency: AccessLogField.contextResponseLatency(),
    integrationLatency: AccessLogField.contextIntegrationLatency(),
    integrationStatus: AccessLogField.contextIntegrationStatus(),
    keyId: AccessLogField.contextAuthorizerPrincipalId(),
    authorizerLatency: AccessLogField.contextAuthorizerLatency(),
    authorizerStatus: AccessLogField.contextAuthorizerStatus(),
    errorType: AccessLogField.contextErrorResponseType(),
    errorMessage: AccessLogField.contextErrorMessage(),
    xrayTraceId: AccessLogField.contextXrayTraceId(),
  }),
);

/**
 * The REST API of one stage: resources and methods generated from the operations' descriptors, each a Lambda
 * proxy to its own function behind the TOKEN authorizer; a 405 mock on every resource for the
 * methods it does not have; and API Gateway's own answers mapped to the Error object.
 */
export class PetStoreApi extends Construct {
  readonly api: RestApi;
  readonly authorizer: TokenAuthorizer;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: PetStoreApiProps) {
    super(scope, id);
    const { stage } = props;
    // Fails the synth on an origin no browser could send (a path, upper case, a typo).
    const origins = parseAllowedOrigins(stage.allowedOrigins.join(','));
    const vary = origins.length > 0 ? { Vary: 'Origin' } : {};

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: stage.logRetention,
      removalPolicy: stage.dataProtection.removalPolicy,
    });

    this.api = new RestApi(this, 'Api', {
      restApiName: props.restApiName,
      description: `Pet store API (${stage.name})`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // API Gateway needs an account-wide role to write any log (access and execution logs).
      // Kept on stack deletion: the other stage (or another API) in the account may rely on it.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: stage.throttling.rateLimit,
        throttlingBurstLimit: stage.throttling.burstLimit,
        tracingEnabled: true,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
        loggingLevel: MethodLoggingLevel.ERROR,
        // Full request logging would write the Authorization header, i.e. API keys, to the logs.
        dataTraceEnabled: false,
      },
    });

    // RestApi adds an `Endpoint` output of its own; the stack outputs the same URL as `ApiUrl`.
    this.api.node.tryRemoveChild('Endpoint');

    // API Gateway creates the execution log group on first use, kept forever; created here it
    // gets the stage's retention (it must exist before the stage starts logging).
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${STAGE_NAME}`,
      retention: stage.logRetention,
      removalPolicy: stage.dataProtection.removalPolicy,
    });
    this.api.deploymentStage.node.addDependency(executionLogs);
    for (const logGroup of [this.accessLogs, executionLogs]) acknowledgeLogGroupRules(logGroup);

    this.authorizer = new TokenAuthorizer(this, 'Authorizer', {
      handler: props.authorizer,
      identitySource: IdentitySource.header(authorizerContract.identitySource),
      resultsCacheTtl: Duration.seconds(stage.authorizerCacheTtlSeconds),
    });
    const authorized = { authorizer: this.authorizer, authorizationType: AuthorizationType.CUSTOM };

    const { operations } = props;
    for (const operation of operations) {
      const handler = props.handlers[operation.operationId];
      if (!handler) throw new Error(`PetStoreApi: no function for operation ${operation.operationId}`);
      this.resource(operation.path).addMethod(
        operation.method,
        new LambdaIntegration(handler, { proxy: true, allowTestInvoke: false }),
        { ...authorized, operationName: operation.operationId },
      );
    }

    // API Gateway prefers a method of its own over ANY, so these answer only the other methods.
    for (const path of resourcePathsOf(operations)) {
      const error = methodNotAllowed(allowedMethodsIn(operations, path));
      const requestTemplate = JSON.stringify({ statusCode: ERROR_STATUS[error.code] });
      const statusCode = String(ERROR_STATUS[error.code]);
      const fixed = { ...gatewayHeaders(error.code), Allow: error.allow, ...vary };
      this.resource(path).addMethod(
        'ANY',
        new MockIntegration({
          passthroughBehavior: PassthroughBehavior.NEVER,
          requestTemplates: Object.fromEntries(MOCK_CONTENT_TYPES.map((type) => [type, requestTemplate])),
          integrationResponses: [
            {
              statusCode,
              responseTemplates: {
                'application/json': `${corsOverrideTemplate(origins, CORS_ON_ERRORS)}${errorTemplate(error)}`,
              },
              responseParameters: Object.fromEntries(
                Object.entries(fixed).map(([name, value]) => [header(name), quoted(value)]),
              ),
            },
          ],
        }),
        {
          ...authorized,
          methodResponses: [
            {
              statusCode,
              responseParameters: {
                ...Object.fromEntries(Object.keys(fixed).map((name) => [header(name), true])),
                ...corsMethodResponse(origins, CORS_ON_ERRORS),
              },
            },
          ],
        },
      );
    }

    // CORS preflights, answered by API Gateway without a key (browsers never send one with a
    // preflight): CORS headers for an allowed origin, none for any other.
    for (const path of resourcePathsOf(operations)) {
      const cors = preflightCors(allowedMethodsIn(operations, path));
      const fixed = { ...PREFLIGHT_HEADERS, ...vary };
      const requestTemplate = JSON.stringify({ statusCode: PREFLIGHT_STATUS });
      const preflight = this.resource(path).addMethod(
        'OPTIONS',
        new MockIntegration({
          passthroughBehavior: PassthroughBehavior.NEVER,
          requestTemplates: Object.fromEntries(MOCK_CONTENT_TYPES.map((type) => [type, requestTemplate])),
          integrationResponses: [
            {
              statusCode: String(PREFLIGHT_STATUS),
              responseTemplates: { 'application/json': corsOverrideTemplate(origins, cors) },
              responseParameters: Object.fromEntries(
                Object.entries(fixed).map(([name, value]) => [header(name), quoted(value)]),
              ),
            },
          ],
        }),
        {
          authorizationType: AuthorizationType.NONE,
          methodResponses: [
            {
              statusCode: String(PREFLIGHT_STATUS),
              responseParameters: {
                ...Object.fromEntries(Object.keys(fixed).map((name) => [header(name), true])),
                ...corsMethodResponse(origins, cors),
              },
            },
          ],
        },
      );
      Validations.of(preflight).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'A CORS preflight: browsers send it without credentials, so it cannot require a key. It is ' +
          'a mock integration that returns headers only, calls no function and reads no data.',
      });
    }

    for (const [type, error] of Object.entries(GATEWAY_RESPONSES)) {
      this.api.addGatewayResponse(type, {
        type: ResponseType.of(type),
        statusCode: String(ERROR_STATUS[error.code]),
        responseHeaders: {
          ...Object.fromEntries(
            Object.entries(gatewayHeaders(error.code)).map(([name, value]) => [name, quoted(value)]),
          ),
          ...Object.fromEntries(
            Object.entries(gatewayResponseCorsHeaders(origins)).map(([name, value]) => [
              name,
              gatewayResponseValue(value),
            ]),
          ),
        },
        templates: { 'application/json': errorTemplate(error) },
      });
    }
    if (origins.length > 1) {
      Annotations.of(this).addWarningV2(
        'petstore:corsGatewayResponses',
        `${origins.length} CORS origins: API Gateway's own errors (401, 429, 5xx…) carry no CORS header, so browsers cannot read them; docs/deploy.md, "CORS".`,
      );
    }

    this.acknowledgeNagFindings();
    // The methods' permissions to invoke the functions, and the authorizer's.
    acknowledgeApiGatewayInvoke(this.api);
    acknowledgeApiGatewayInvoke(props.authorizer);
  }

  /** The resource for a path of an operation, created on first use. */
  private resource(path: string): IResource {
    return path
      .split('/')
      .filter((part) => part !== '')
      .reduce<IResource>(
        (parent, part) => parent.getResource(part) ?? parent.addResource(part),
        this.api.root,
      );
  }

  private acknowledgeNagFindings(): void {
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Requests are validated in each function (the zod schemas of the contract of each operation, in functions/), ' +
        'which answers with the Error object and per-field details; API Gateway request ' +
        'validation would answer in a shape of its own, and the local server could not mirror it.',
    });
    Validations.of(this.api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'No WAF yet: every method needs an API key, and stage throttling bounds the request ' +
        'rate. A WAFv2 web ACL (rate-based and managed rules) is the next step when the API ' +
        'gets public clients; docs/deploy.md lists it.',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers are services holding API keys, not users signed in to a Cognito user pool: ' +
        'every method is behind the TOKEN (Lambda) authorizer instead.',
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-level role API Gateway writes access and execution logs with; AWS ' +
        'maintains this policy for exactly that purpose, and API Gateway names the log groups itself.',
    });
  }
}
