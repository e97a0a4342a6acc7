import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import { AUTHORIZER_OUTCOMES, type AuthorizerOutcome } from '#shared/http/gateway-behaviour';
import type { TokenAuthorizerHandler } from '#shared/lambda';
import { lambdaContext } from '#tools/lambda/context';
import { tokenAuthorizerEvent } from '#tools/lambda/events';
import { TIMED_OUT, withinTimeout } from '#tools/lambda/timeout';
import { GatewayRefusal } from '#tools/local/gateway-refusal';

/** The TOKEN authorizer step: each ending is an AUTHORIZER_OUTCOMES outcome (gateway-behaviour.ts cites AWS). */

/** The action API Gateway asks the authorizer's policy about ("Output from an Amazon API Gateway Lambda authorizer"). */
const INVOKE = 'execute-api:Invoke';

/** IAM's wildcards in one value: `*` any run of characters, `?` any one (within `within`); every other character literal. */
const wildcardPattern = (pattern: string, within = '.'): string =>
  pattern
    .split('')
    .map((character) => {
      if (character === '*') return `${within}*`;
      if (character === '?') return within;
      return character.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');

/** Compiled once: the same few policies are evaluated for every request of a key. */
const compiled = new Map<string, RegExp>();
const COMPILED_AT_MOST = 1_000;

const cachedRegex = (key: string, make: () => RegExp): RegExp => {
  let regex = compiled.get(key);
  if (!regex) {
    if (compiled.size >= COMPILED_AT_MOST) compiled.clear();
    regex = make();
    compiled.set(key, regex);
  }
  return regex;
};

/** The six parts of an ARN (`arn:partition:service:region:account:resource`); the resource may hold colons. */
const arnParts = (arn: string): string[] => {
  const parts = arn.split(':');
  return [...parts.slice(0, 5), parts.slice(5).join(':')];
};

/** An ARN as it is matched: its first five parts in lower case (IAM matches them in any case), its resource as it is. */
const comparable = (arn: string): string =>
  arnParts(arn)
    .map((part, index) => (index < 5 ? part.toLowerCase() : part))
    .join(':');

/** A policy resource as one expression over a comparable ARN: a wildcard never reaches past a colon before the resource. */
const resourceRegex = (pattern: string): RegExp =>
  cachedRegex(`resource:${pattern}`, () => {
    const parts = arnParts(pattern);
    const before = parts.slice(0, 5).map((part) => wildcardPattern(part.toLowerCase(), '[^:]'));
    return new RegExp(`^${[...before, wildcardPattern(parts[5] ?? '')].join(':')}$`);
  });

/**
 * IAM's match of a policy resource with a method ARN ("IAM JSON policy elements: Resource": wildcards
 * `*` and `?` "within any ARN segment", each segment matched on its own), the resource part case-sensitively.
 */
export const arnMatches = (pattern: string, arn: string): boolean => covers(pattern, comparable(arn));

/** Whether a policy resource covers an ARN already made comparable. */
const covers = (pattern: string, target: string): boolean =>
  pattern === '*' || (pattern.startsWith('arn:') && resourceRegex(pattern).test(target));

/** An action of a statement against `execute-api:Invoke`: action names are case-insensitive ("IAM JSON policy elements: Action"). */
const actionMatches = (pattern: string): boolean =>
  cachedRegex(`action:${pattern}`, () => new RegExp(`^${wildcardPattern(pattern)}$`, 'i')).test(INVOKE);

type PolicyStatement = Readonly<Record<string, unknown>>;

const statementsOf = (result: APIGatewayAuthorizerResult): readonly PolicyStatement[] =>
  (result.policyDocument?.Statement ?? []) as unknown as readonly PolicyStatement[];

const listOf = (value: unknown): string[] => [value ?? []].flat().map(String);

/** Whether a statement applies to invoking the (comparable) ARN: its Action and its Resource both cover it. */
const applies = (statement: PolicyStatement, target: string): boolean =>
  listOf(statement.Action).some(actionMatches) &&
  listOf(statement.Resource).some((resource) => covers(resource, target));

/**
 * IAM's decision for invoking `arn` ("Policy evaluation logic"): an explicit Deny wins, then an Allow;
 * without either, an implicit deny. Effects are case-sensitive, as IAM's values are.
 */
export const policyAllows = (result: APIGatewayAuthorizerResult, arn: string): boolean => {
  const target = comparable(arn);
  const applicable = statementsOf(result).filter((statement) => applies(statement, target));
  return (
    applicable.some(({ Effect }) => Effect === 'Allow') && !applicable.some(({ Effect }) => Effect === 'Deny')
  );
};

/** The elements of a statement the local gateway evaluates; a policy using any other is not one it models. */
const EVALUATED_ELEMENTS: ReadonlySet<string> = new Set(['Sid', 'Effect', 'Action', 'Resource']);

/**
 * "Output from an Amazon API Gateway Lambda authorizer": it "must include the principal identifier
 * (principalId) and a policy document (policyDocument) containing a list of policy statements". A
 * statement with an element evaluated here by no rule (a Condition, a NotAction) is refused as malformed
 * rather than read as unconditional (docs/aws-ledger.md).
 */
const isAuthorizerResult = (value: unknown): value is APIGatewayAuthorizerResult => {
  const result = value as Partial<APIGatewayAuthorizerResult> | null;
  return (
    typeof result?.principalId === 'string' &&
    Array.isArray(result.policyDocument?.Statement) &&
    result.policyDocument.Statement.every(
      (statement) =>
        typeof statement === 'object' &&
        statement !== null &&
        Object.keys(statement).every((element) => EVALUATED_ELEMENTS.has(element)),
    ) &&
    (result.context === undefined || (typeof result.context === 'object' && result.context !== null))
  );
};

/**
 * The decision API Gateway caches per token for the stage's TTL and applies to every route asked
 * within it ("Authorizer", authorizerResultTtlInSeconds). The local gateway still invokes the authorizer
 * for every request (a revoked key stops at once), and also holds each request to the policy API Gateway
 * would have cached for its token: a policy that covers only the route it was asked for fails here as in AWS.
 */
export class CachedDecisions {
  private readonly decisions = new Map<
    string,
    { readonly result: APIGatewayAuthorizerResult; readonly until: number }
  >();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The decision cached for `token`: the first within the TTL, else `result`, cached from now. */
  decisionFor(token: string, result: APIGatewayAuthorizerResult): APIGatewayAuthorizerResult {
    const now = this.now();
    const cached = this.decisions.get(token);
    if (cached && cached.until > now) return cached.result;
    // Only accepted keys are cached (a refused one throws): as many entries as keys in use.
    for (const [held, { until }] of this.decisions) if (until <= now) this.decisions.delete(held);
    this.decisions.set(token, { result, until: now + this.ttlMs });
    return result;
  }
}

const VALID_TOKEN = new RegExp(IDENTITY_VALIDATION_EXPRESSION);

const refusal = (outcome: AuthorizerOutcome) => GatewayRefusal.of(AUTHORIZER_OUTCOMES[outcome]);

export interface AuthorizeOptions {
  readonly authorizer: TokenAuthorizerHandler;
  /** Every `Authorization` header of the request. */
  readonly tokens: readonly string[];
  readonly methodArn: string;
  /** The authorizer's Lambda timeout. */
  readonly timeoutMs: number;
  /** As the authorizer's invocation id, so one `grep` finds a request's lines. */
  readonly requestId?: string;
  /** The decisions API Gateway would have cached. @default none: each request is held to its own decision only */
  readonly cached?: CachedDecisions;
}

/** The authorizer's result for a request that may proceed; throws GatewayRefusal otherwise. */
export const authorizeRequest = async (options: AuthorizeOptions): Promise<APIGatewayAuthorizerResult> => {
  const [token, ...more] = options.tokens;
  // Two Authorization headers are refused rather than resolved by picking one.
  if (!token || more.length > 0) throw refusal('noToken');
  if (!VALID_TOKEN.test(token)) throw refusal('invalidToken');
  let result: unknown;
  try {
    const invocation = options.authorizer(
      tokenAuthorizerEvent(token, options.methodArn),
      lambdaContext('authorizer', {
        timeoutMs: options.timeoutMs,
        ...(options.requestId ? { awsRequestId: options.requestId } : {}),
      }),
    );
    result = await withinTimeout(invocation, options.timeoutMs);
  } catch (error) {
    // What API Gateway sees of a failed invocation is its error message.
    throw refusal(
      (error as { message?: unknown } | null)?.message === 'Unauthorized' ? 'unauthorized' : 'error',
    );
  }
  if (result === TIMED_OUT) throw refusal('timeout');
  if (!isAuthorizerResult(result)) throw refusal('malformed');
  const cached = options.cached?.decisionFor(token, result) ?? result;
  const allowed =
    policyAllows(result, options.methodArn) && (cached === result || policyAllows(cached, options.methodArn));
  if (!allowed) throw refusal('deny');
  return result;
};
