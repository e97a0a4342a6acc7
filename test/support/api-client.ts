/**
 * The HTTP tests' client for the local server. Every response passes through the registered
 * observers (for example the OpenAPI conformance check), so each test that makes a request also
 * checks the response against the contract without saying so.
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

type Observer = (exchange: ObservedExchange) => void;
const observers: Observer[] = [];

/** Registers a check run on every response of every ApiClient. */
export const observeResponses = (observer: Observer): void => {
  observers.push(observer);
};

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
  ) {}

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
    for (const observe of observers) observe(exchange);
    return exchange;
  }

  get(path: string, request: Omit<ApiRequest, 'method' | 'body'> = {}) {
    return this.request(path, { ...request, method: 'GET' });
  }

  post(path: string, body: unknown, request: Omit<ApiRequest, 'method' | 'body'> = {}) {
    return this.request(path, { ...request, method: 'POST', body });
  }
}
