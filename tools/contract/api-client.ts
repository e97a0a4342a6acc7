import { assertResponseHeaders } from './response-headers';

/**
 * The contract suite's client, which the HTTP tests use too. Built with
 * `ApiClient.checkedAgainst(contract, …)`, it holds every response, as it arrives, to the OpenAPI
 * document and to the headers every response carries (nosniff, no-store, Retry-After on 429 and
 * 503): a response that breaks either fails the request, and so the check or test. A plain
 * `new ApiClient(…)` checks nothing.
 */

export interface ObservedExchange {
  readonly method: string;
  /** Path relative to the base URL, with query: `/pets?limit=5`. */
  readonly path: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

/** What the client runs on every response, e.g. a contract check that throws. */
export type ResponseCheck = (exchange: ObservedExchange) => void;

/** The contract a checked client holds responses to. */
export interface ResponseContract {
  assertConforms(exchange: ObservedExchange): void;
}

export interface ApiRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON with `Content-Type: application/json`; a string as it is. */
  readonly body?: unknown;
  /** Send without the Authorization header. */
  readonly anonymous?: boolean;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly check: ResponseCheck = () => undefined,
  ) {}

  /**
   * A client whose every response must conform to `contract` (docs/openapi.yaml), carry the
   * headers every response carries, and pass `also` when given.
   */
  static checkedAgainst(
    contract: ResponseContract,
    baseUrl: string,
    apiKey: string,
    also: ResponseCheck = () => undefined,
  ): ApiClient {
    return new ApiClient(baseUrl, apiKey, (exchange) => {
      contract.assertConforms(exchange);
      assertResponseHeaders(exchange);
      also(exchange);
    });
  }

  async request(path: string, request: ApiRequest = {}): Promise<ObservedExchange> {
    const headers: Record<string, string> = {
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
    } catch {
      json = undefined;
    }
    const exchange: ObservedExchange = {
      method,
      path,
      requestHeaders: headers,
      status: response.status,
      headers: response.headers,
      text,
      json,
    };
    this.check(exchange);
    return exchange;
  }

  get(path: string, request: Omit<ApiRequest, 'method' | 'body'> = {}) {
    return this.request(path, { ...request, method: 'GET' });
  }

  post(path: string, body: unknown, request: Omit<ApiRequest, 'method' | 'body'> = {}) {
    return this.request(path, { ...request, method: 'POST', body });
  }
}
