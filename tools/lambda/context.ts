import { randomUUID } from 'node:crypto';
import type { APIGatewayEventIdentity, Context } from 'aws-lambda';

/** Free of project imports: the bench's child harness bundles it and must load nothing else. */

export interface LambdaContextOptions {
  /** The Lambda timeout the handler sees in `getRemainingTimeInMillis`. */
  readonly timeoutMs?: number;
  readonly region?: string;
  readonly logStreamName?: string;
  readonly awsRequestId?: string;
}

export const lambdaContext = (functionName: string, options: LambdaContextOptions = {}): Context => {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${options.region ?? 'local'}:000000000000:function:${functionName}`,
    memoryLimitInMB: '512', // the stack's
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: options.logStreamName ?? 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/** `requestContext.identity` of a REST proxy event for a caller with no IAM or Cognito identity. */
export const callerIdentity = (sourceIp: string, userAgent: string | null): APIGatewayEventIdentity => ({
  accessKey: null,
  accountId: null,
  apiKey: null,
  apiKeyId: null,
  caller: null,
  clientCert: null,
  cognitoAuthenticationProvider: null,
  cognitoAuthenticationType: null,
  cognitoIdentityId: null,
  cognitoIdentityPoolId: null,
  principalOrgId: null,
  sourceIp,
  user: null,
  userAgent,
  userArn: null,
});
