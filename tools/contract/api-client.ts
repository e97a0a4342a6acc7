import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { IDEMPOTENCY_KEY_HEADER } from '#shared/http/idempotency-headers';
import { parseRateLimitPolicy } from '#shared/http/rate-limit-policy';
import { TokenBucket } from '#tools/local/fair-use';
import type { Contract } from './conformance';
import { assertResponseHeaders } from './response-headers';

/** `ApiClient.checkedAgainst` holds answers to the document and common headers; `new ApiClient` does not. */

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

export type ResponseContract = Pick<Contract, 'assertConforms'>;

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

export interface PacingClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: PacingClock = { now: () => Date.now(), sleep: (ms) => sleep(ms) };

/** A bucket at the rate the first `RateLimit-Policy` names; until then one request at a time (the burst). */
export class Pacer {
  private bucket: TokenBucket | undefined;
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

/** A 503 may be repeated for a read, or a write with an Idempotency-Key (applied once, whichever lands). */
const repeatable = (method: string, headers: Record<string, string> = {}) =>
  SAFE_METHODS.has(method) ||
  Object.keys(headers).some((name) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER.toLowerCase());

export interface ApiRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it is. */
  readonly body?: unknown;
  readonly anonymous?: boolean;
}

export class ApiClient {
  /** @param pacer paces by plan, waits out 429s and repeatable 503s, stops on QUOTA_EXCEEDED. */
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

  /** With a pacer, a POST carries an Idempotency-Key unless `request` names one, so a 503 can be repeated. */
  post(path: string, body: unknown, request: Omit<ApiRequest, 'method' | 'body'> = {}) {
    const headers =
      !this.pacer || repeatable('POST', request.headers)
        ? request.headers
        : { [IDEMPOTENCY_KEY_HEADER]: randomUUID(), ...request.headers };
    return this.request(path, { ...request, method: 'POST', body, headers });
  }
}
