import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { IDEMPOTENCY_KEY_HEADER } from '#shared/http/idempotency-headers';
import { parseRateLimitPolicy } from '#shared/http/rate-limit-policy';
import { TokenBucket } from '#tools/local/fair-use';
import { assertResponseHeaders } from './response-headers';

/**
 * The contract suite's client, which the HTTP tests use too. `ApiClient.checkedAgainst(contract, …)`
 * holds every response to the OpenAPI document and the headers every response carries; a plain
 * `new ApiClient(…)` checks nothing.
 */

export interface ObservedExchange {
  readonly method: string;
  /** Relative to the base URL, with query: `/pets?limit=5`. */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

export type ResponseCheck = (exchange: ObservedExchange) => void;

export interface ResponseContract {
  assertConforms(exchange: ObservedExchange): void;
}

/** The key's plan quota at `baseUrl` is spent: the sentence a command stops on. */
export class QuotaExhausted extends Error {
  override readonly name = 'QuotaExhausted';
  constructor(baseUrl: string) {
    super(
      `the key's plan quota at ${baseUrl} is used up (429 QUOTA_EXCEEDED), so every further request would be refused for that reason alone; run again once the quota resets (00:00 UTC, or the 1st of the month for a monthly plan), or give a key on a plan with quota left.`,
    );
  }
}

/** The User-Agent the suite sends: AWS's managed rules in front of a stage block a request without one. */
export const SUITE_USER_AGENT = 'petstore-contract-suite/1';

/** The real clock, or a test's. */
export interface PacingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: PacingClock = { now: () => Date.now(), sleep: (ms) => sleep(ms) };

/**
 * Keeps a client within its key's plan: a token bucket of the rate the first `RateLimit-Policy`
 * names. Until an answer has named it, requests go one at a time: a client sending at once as
 * many as it runs checks, then a whole bucket, would send more than the burst before it knew it.
 */
export class Pacer {
  private bucket: TokenBucket | undefined;
  /** The request in flight while the plan is not known yet. */
  private probe: { readonly answered: Promise<void>; readonly release: () => void } | undefined;

  constructor(private readonly clock: PacingClock = REAL_CLOCK) {}

  learn(headers: Headers): void {
    const rate = this.bucket ? undefined : parseRateLimitPolicy(headers.get('ratelimit-policy'))?.[1];
    if (!rate) return;
    // One below the burst: API Gateway's bucket and this one are not filled at the same instant.
    this.bucket = new TokenBucket(
      Math.max(1, rate.quota - 1),
      rate.quota / rate.windowSeconds,
      this.clock.now(),
    );
    // The request whose answer named the plan was sent under it too.
    this.bucket.take(this.clock.now());
  }

  async take(): Promise<void> {
    while (!this.bucket && this.probe) await this.probe.answered;
    if (!this.bucket) {
      let release = () => {};
      const answered = new Promise<void>((resolve) => {
        release = resolve;
      });
      this.probe = { answered, release };
      return;
    }
    while (!this.bucket.take(this.clock.now())) await this.clock.sleep(1_000 / this.bucket.refillPerSecond);
  }

  /** A request's answer (or failure) is in: the next may go if the plan is still unknown. */
  settled(): void {
    const probe = this.probe;
    this.probe = undefined;
    probe?.release();
  }

  retryAfter(seconds: number): Promise<void> {
    return this.clock.sleep(seconds * 1_000);
  }
}

/** Tries of a request refused 429 TOO_MANY_REQUESTS, or 503 where a repeat is safe, each after its Retry-After. */
const TRIES = 5;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a 503 may be answered by sending the request again, as the interface tells clients: a
 * read, or a write carrying an Idempotency-Key (the service applies it once, whichever try lands).
 */
const repeatable = (method: string, headers: Record<string, string> = {}) =>
  SAFE_METHODS.has(method) ||
  Object.keys(headers).some((name) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER.toLowerCase());

export interface ApiRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it is. */
  readonly body?: unknown;
  /** Without the Authorization header. */
  readonly anonymous?: boolean;
}

export class ApiClient {
  /**
   * @param pacer paces the client by its plan, waits out a 429 TOO_MANY_REQUESTS (Retry-After),
   *   and a 503 of a request safe to repeat, and stops on QUOTA_EXCEEDED (QuotaExhausted); without
   *   one, every answer comes back as it is.
   */
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly check: ResponseCheck = () => undefined,
    private readonly pacer?: Pacer,
  ) {}

  static checkedAgainst(
    contract: ResponseContract,
    baseUrl: string,
    apiKey: string,
    also: ResponseCheck = () => undefined,
    pacer?: Pacer,
  ): ApiClient {
    const check: ResponseCheck = (exchange) => {
      contract.assertConforms(exchange);
      assertResponseHeaders(exchange);
      also(exchange);
    };
    return new ApiClient(baseUrl, apiKey, check, pacer);
  }

  async request(path: string, request: ApiRequest = {}): Promise<ObservedExchange> {
    for (let tryNumber = 1; ; tryNumber += 1) {
      await this.pacer?.take();
      let exchange: ObservedExchange;
      try {
        exchange = await this.send(path, request);
      } finally {
        this.pacer?.settled();
      }
      const waitable =
        exchange.status === 429 || (exchange.status === 503 && repeatable(exchange.method, request.headers));
      if (!this.pacer || !waitable || tryNumber === TRIES) {
        this.check(exchange);
        return exchange;
      }
      const { code } = (exchange.json ?? {}) as { code?: unknown };
      if (code === 'QUOTA_EXCEEDED') throw new QuotaExhausted(this.baseUrl);
      await this.pacer.retryAfter(Number(exchange.headers.get('retry-after') ?? 1));
    }
  }

  private async send(path: string, request: ApiRequest): Promise<ObservedExchange> {
    const headers: Record<string, string> = {
      'User-Agent': SUITE_USER_AGENT,
      ...(request.anonymous ? {} : { Authorization: `Bearer ${this.apiKey}` }),
      ...(typeof request.body === 'object' && request.body !== null
        ? { 'Content-Type': 'application/json' }
        : {}),
      ...request.headers,
    };
    const method = request.method ?? 'GET';
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(request.body === undefined
        ? {}
        : { body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) }),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {}
    this.pacer?.learn(response.headers);
    return { method, path, status: response.status, headers: response.headers, text, json };
  }

  get(path: string, request: Omit<ApiRequest, 'method' | 'body'> = {}) {
    return this.request(path, { ...request, method: 'GET' });
  }

  /**
   * With a pacer (the suite's client), a POST carries an Idempotency-Key of its own unless
   * `request` names one, as the guide tells clients, so a 503 can be answered by a repeat.
   */
  post(path: string, body: unknown, request: Omit<ApiRequest, 'method' | 'body'> = {}) {
    const headers =
      !this.pacer || repeatable('POST', request.headers)
        ? request.headers
        : { [IDEMPOTENCY_KEY_HEADER]: randomUUID(), ...request.headers };
    return this.request(path, { ...request, method: 'POST', body, headers });
  }
}
