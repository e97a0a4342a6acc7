import { Annotations, Duration, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  type Method,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  type MethodOptions,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { authorizer as authorizerContract } from '#functions/authorizer';
import { ACCESS_LOG_FORMAT_TEXT } from '#infra/access-log';
import { Firewall } from '#infra/constructs/firewall';
import { addGatewayResponse, mockAnswer } from '#infra/constructs/gateway-answers';
import { UsagePlans } from '#infra/constructs/usage-plans';
import { ValidationError } from '#infra/constructs/validation-error';
import { acknowledgeApiGatewayInvoke, acknowledgeLogGroupRules } from '#infra/control-tower';
import type { StageConfig } from '#infra/stages';
import { type AllowedOrigins, CorsConfigError, parseAllowedOrigins } from '#shared/allowed-origins';
import { IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import {
  corsAllowedHeaders,
  GATEWAY_RESPONSES,
  type GatewayAnswer,
  type GatewayResponseType,
  methodNotAllowed,
  preflight,
} from '#shared/http/gateway-behaviour';
import { STAGE_NAME } from '#shared/http/paths';
import type { Operation } from '#shared/operations/operation';
import { allowedMethodsIn, resourcePathsOf, writesData } from '#shared/operations/routes';

export interface PetStoreApiProps {
  readonly stage: StageConfig;
  /** The stack's own name, so stages never share one. */
  readonly restApiName: string;
  readonly operations: readonly Operation[];
  /** By operation id: a function or an alias; every operation needs one. */
  readonly handlers: Readonly<Record<string, IFunction>>;
  readonly authorizer: IFunction;
}

const ACCESS_LOG_FORMAT = AccessLogFormat.custom(ACCESS_LOG_FORMAT_TEXT);

/**
 * Execution logging of every method, the stage's and each override's alike: an override is a
 * method setting of its own, and nothing in AWS's documentation of MethodSetting says that one
 * that omits `LoggingLevel` takes the stage's. Full request logging would write the
 * `Authorization` header, i.e. API keys, to the logs.
 */
const EXECUTION_LOGGING = { loggingLevel: MethodLoggingLevel.ERROR, dataTraceEnabled: false } as const;

/** One stage's REST API, its mocks and gateway answers from `shared/http/gateway-behaviour.ts`, as the local gateway's. */
export class PetStoreApi extends Construct {
  readonly api: RestApi;
  readonly authorizer: TokenAuthorizer;
  readonly accessLogs: LogGroup;

  private readonly stage: StageConfig;
  private readonly operations: readonly Operation[];
  private readonly origins: AllowedOrigins;

  constructor(scope: Construct, id: string, props: PetStoreApiProps) {
    super(scope, id);
    this.stage = props.stage;
    this.operations = props.operations;
    this.origins = this.checkedOrigins();
    this.accessLogs = this.logGroup('AccessLogs');
    this.api = this.restApi(props.restApiName);
    this.addExecutionLogGroup();
    this.authorizer = this.tokenAuthorizer(props.authorizer);
    this.addOperations(props.handlers);
    this.addMethodNotAllowedMocks();
    this.addPreflights();
    this.addGatewayResponses();
    new UsagePlans(this, 'UsagePlans', {
      api: this.api,
      plans: this.stage.plans,
      stageThrottling: this.stage.throttling,
      namePrefix: props.restApiName,
    });
    this.addFirewall();
    this.acknowledgeFindings(props.authorizer);
  }

  /** The stage's origins as browsers send them; the synth fails on any other (a path, upper case, a typo). */
  private checkedOrigins(): AllowedOrigins {
    try {
      return parseAllowedOrigins(this.stage.allowedOrigins.join(','));
    } catch (error) {
      if (error instanceof CorsConfigError)
        throw new ValidationError(`allowedOrigins: ${error.message}`, this);
      throw error;
    }
  }

  private logGroup(id: string, logGroupName?: string): LogGroup {
    const logGroup = new LogGroup(this, id, {
      ...(logGroupName ? { logGroupName } : {}),
      retention: this.stage.logRetention,
      removalPolicy: this.stage.dataProtection.removalPolicy,
    });
    acknowledgeLogGroupRules(logGroup);
    return logGroup;
  }

  private restApi(restApiName: string): RestApi {
    const api = new RestApi(this, 'Api', {
      restApiName,
      description: `Pet store API (${this.stage.name})`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // One role per account and region, set once (docs/deploy.md, "Once per account and region"):
      // made here, it raced its own permissions on first create and each stage overwrote the other's.
      cloudWatchRole: false,
      // Metered through the authorizer's usageIdentifierKey, never an X-API-Key header a client sends.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: this.stage.throttling.rateLimit,
        throttlingBurstLimit: this.stage.throttling.burstLimit,
        methodOptions: this.writeMethodOptions(),
        tracingEnabled: true,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
        ...EXECUTION_LOGGING,
      },
    });
    // RestApi adds an `Endpoint` output of its own; the stack outputs the same URL as `ApiUrl`.
    api.node.tryRemoveChild('Endpoint');
    return api;
  }

  /** Else each write method alone would admit the whole default (docs/deploy.md, "Throttling"). */
  private writeMethodOptions(): Record<string, MethodDeploymentOptions> {
    const { throttling, writeThrottling } = this.stage;
    if (
      writeThrottling.rateLimit > throttling.rateLimit ||
      writeThrottling.burstLimit > throttling.burstLimit
    )
      throw new ValidationError(
        `writeThrottling (rate ${writeThrottling.rateLimit}, burst ${writeThrottling.burstLimit}) is above the stage's throttling (rate ${throttling.rateLimit}, burst ${throttling.burstLimit}): it is a lower limit`,
        this,
      );
    return Object.fromEntries(
      this.operations.filter(writesData).map((operation) => [
        `${operation.path}/${operation.method}`,
        {
          throttlingRateLimit: writeThrottling.rateLimit,
          throttlingBurstLimit: writeThrottling.burstLimit,
          ...EXECUTION_LOGGING,
        },
      ]),
    );
  }

  /** API Gateway makes the execution log's group on first use, kept forever; made here, it has the stage's retention. */
  private addExecutionLogGroup(): void {
    const logGroup = this.logGroup(
      'ExecutionLogs',
      `API-Gateway-Execution-Logs_${this.api.restApiId}/${STAGE_NAME}`,
    );
    // It must exist before the stage starts logging.
    this.api.deploymentStage.node.addDependency(logGroup);
  }

  /** Cached for the stage's TTL; a header that is not `Bearer <b64token>` is a 401 without an invocation. */
  private tokenAuthorizer(handler: IFunction): TokenAuthorizer {
    return new TokenAuthorizer(this, 'Authorizer', {
      handler,
      identitySource: IdentitySource.header(authorizerContract.identitySource),
      validationRegex: IDENTITY_VALIDATION_EXPRESSION,
      resultsCacheTtl: Duration.seconds(this.stage.authorizerCacheTtlSeconds),
    });
  }

  /** Every method but the preflights: behind the authorizer, whose usage identifier meters the caller's plan. */
  private get authorized(): MethodOptions {
    return { authorizer: this.authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true };
  }

  private addOperations(handlers: PetStoreApiProps['handlers']): void {
    for (const operation of this.operations) {
      const handler = handlers[operation.operationId];
      if (!handler) throw new ValidationError(`handlers: no function for ${operation.operationId}`, this);
      this.resource(operation.path).addMethod(
        operation.method,
        new LambdaIntegration(handler, { proxy: true, allowTestInvoke: false }),
        { ...this.authorized, operationName: operation.operationId },
      );
    }
  }

  /** 405 with `Allow`: API Gateway prefers a resource's own methods over this `ANY` mock. */
  private addMethodNotAllowedMocks(): void {
    for (const path of resourcePathsOf(this.operations)) {
      this.addMock(path, 'ANY', methodNotAllowed(allowedMethodsIn(this.operations, path)), this.authorized);
    }
  }

  /** CORS preflights, without a key (browsers never send one): CORS headers for an allowed origin only. */
  private addPreflights(): void {
    for (const path of resourcePathsOf(this.operations)) {
      const answer = preflight(allowedMethodsIn(this.operations, path), corsAllowedHeaders(this.operations));
      const method = this.addMock(path, 'OPTIONS', answer, { authorizationType: AuthorizationType.NONE });
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'A CORS preflight: browsers send it without credentials, so it cannot require a key. It is ' +
          'a mock integration that returns headers only, calls no function and reads no data.',
      });
    }
  }

  private addMock(path: string, method: string, answer: GatewayAnswer, options: MethodOptions): Method {
    const { integration, methodResponses } = mockAnswer(answer, this.origins);
    return this.resource(path).addMethod(method, integration, { ...options, methodResponses });
  }

  /** API Gateway's own answers (401, 404, 429, 5xx…) as the Error object, with what CORS they can carry. */
  private addGatewayResponses(): void {
    for (const type of Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[]) {
      addGatewayResponse(this.api, type, this.origins);
    }
    if (this.origins.length > 1) {
      Annotations.of(this).addWarningV2(
        'petstore:corsGatewayResponses',
        `${this.origins.length} CORS origins: API Gateway's own errors (401, 429, 5xx…) carry no CORS header, so browsers cannot read them; docs/design.md, "CORS".`,
      );
    }
  }

  private addFirewall(): void {
    const { firewall, plans, throttling, writeThrottling } = this.stage;
    if (!firewall.enabled) {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          `The ${this.stage.name} stage's firewall setting is off (infra/stages.ts: firewall.enabled), to save ` +
          "a web ACL's monthly cost on a stage only the team calls; its keys are still held to their plans.",
      });
      return;
    }
    new Firewall(this, 'Firewall', {
      ...firewall,
      stage: this.api.deploymentStage,
      fastestPlanRate: Math.max(...Object.values(plans.plans).map((plan) => plan.rateLimit)),
      slowestMethodRate: Math.min(throttling.rateLimit, writeThrottling.rateLimit),
    });
  }

  private resource(path: string): IResource {
    return path
      .split('/')
      .filter((part) => part !== '')
      .reduce<IResource>(
        (parent, part) => parent.getResource(part) ?? parent.addResource(part),
        this.api.root,
      );
  }

  private acknowledgeFindings(authorizer: IFunction): void {
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Requests are validated in each function (the valibot schemas of the contract of each operation, in functions/), ' +
        'which answers with the Error object and per-field details; API Gateway request ' +
        'validation would answer in a shape of its own, and the local server could not mirror it.',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers are services holding API keys, not users signed in to a Cognito user pool: ' +
        'every method is behind the TOKEN (Lambda) authorizer instead.',
    });
    // The methods' permissions to invoke the functions, and the authorizer's.
    acknowledgeApiGatewayInvoke(this.api);
    acknowledgeApiGatewayInvoke(authorizer);
  }
}
