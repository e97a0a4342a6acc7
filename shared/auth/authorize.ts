import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { hashApiKey, isActive, parseBearerToken } from '#shared/auth/api-key';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

/**
 * A refused key. API Gateway recognises it by this exact message and answers 401; any other
 * failure of a TOKEN authorizer becomes its AUTHORIZER_FAILURE (a 5xx) instead.
 */
export class UnauthorizedError extends Error {
  override readonly name = 'UnauthorizedError';
  constructor() {
    super('Unauthorized');
  }
}

export const isUnauthorized = (error: unknown): error is UnauthorizedError =>
  error instanceof UnauthorizedError;

/**
 * `arn:aws:execute-api:<region>:<account>:<apiId>/<stage>/<METHOD>/<path>` → the same up to the
 * stage, then `/*\/*`. API Gateway caches the policy per token and reuses it for every route, so
 * a policy naming only the first route would deny the next one.
 */
export const wholeStageArn = (methodArn: string): string => {
  // `arn:aws:execute-api:<region>:<account>:<apiId>` is the part before the first `/`.
  const [apiArn, stage] = methodArn.split('/');
  if (!apiArn?.startsWith('arn:') || !stage) throw new Error(`Unexpected methodArn: ${methodArn}`);
  return `${apiArn}/${stage}/*/*`;
};

/** Context handed to the functions in `requestContext.authorizer`: names the key, never holds it. */
export interface CallerContext {
  readonly keyId: string;
  readonly keyName: string;
}

/**
 * Decides a TOKEN authorizer request: an Allow policy for the whole stage when the bearer key's
 * hash is a stored, unrevoked key; otherwise throws UnauthorizedError.
 */
export const authorize = async (
  apiKeys: ApiKeyRepository,
  authorizationToken: string | undefined,
  methodArn: string,
): Promise<APIGatewayAuthorizerResult & { context: CallerContext }> => {
  const key = parseBearerToken(authorizationToken);
  if (!key) throw new UnauthorizedError();
  const record = await apiKeys.findByHash(hashApiKey(key));
  if (!record || !isActive(record)) throw new UnauthorizedError();
  return {
    principalId: record.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeStageArn(methodArn) }],
    },
    context: { keyId: record.keyId, keyName: record.name },
  };
};
