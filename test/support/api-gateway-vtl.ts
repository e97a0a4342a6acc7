import velocity from 'amplify-velocity-template';

/**
 * API Gateway's mapping templates rendered by a real VTL engine (AWS Amplify's), with the
 * variables AWS documents in "API Gateway mapping template and access logging variable
 * reference": `$context`, `$input`, `$util`, `$stageVariables`. `$util` is written here as AWS
 * documents it; its `escapeJavaScript` escapes `'` as `\'` ("This function will turn any regular
 * single quotes (') into escaped ones (\')"), which JSON refuses.
 */

/** What a client writes into a request, as hostile as JSON gets: quotes, backslashes, line ends, U+2028. */
export const HOSTILE = `"q'\\\\b\n\r\t\u2028\u2029</script>\${x}$context.x #set($a = 1)`;

/**
 * The `$context` of a request whose every client-controlled value is HOSTILE: the request id a
 * client can set (X-Amzn-RequestId), the path, the Host (domainName), the User-Agent, the error
 * message; the values API Gateway generates (the extended request id, the resource path, status,
 * times, ids) are what it writes.
 */
export const hostileContext = (extendedRequestId = 'CeB3rGQxoAMEbLw=') => ({
  accountId: '123456789012',
  apiId: 'a1b2c3d4e5',
  authorizer: {
    principalId: HOSTILE,
    keyId: HOSTILE,
    keyName: HOSTILE,
    plan: HOSTILE,
    rateLimitPolicy: HOSTILE,
  },
  awsEndpointRequestId: HOSTILE,
  domainName: HOSTILE,
  domainPrefix: HOSTILE,
  error: {
    message: HOSTILE,
    messageString: JSON.stringify(HOSTILE),
    responseType: 'UNAUTHORIZED',
    validationErrorString: HOSTILE,
  },
  extendedRequestId,
  httpMethod: 'P!#$%&*+-.^_`|~T',
  identity: { sourceIp: '203.0.113.17', userAgent: HOSTILE, caller: HOSTILE, user: HOSTILE },
  path: HOSTILE,
  protocol: 'HTTP/1.1',
  requestId: HOSTILE,
  requestTime: '24/Nov/2026:10:15:42 +0000',
  requestTimeEpoch: 1795515342000,
  resourceId: 'abc123',
  resourcePath: '/pets/{petId}',
  stage: 'v1',
  responseOverride: { header: {} as Record<string, string>, status: undefined as number | undefined },
});

/** A request as `$input` shows it: headers, query string and path parameters, and the body. */
export interface TemplateRequest {
  readonly headers?: Readonly<Record<string, string>>;
  readonly querystring?: Readonly<Record<string, string>>;
  readonly path?: Readonly<Record<string, string>>;
  readonly body?: string;
}

const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  "'": "\\'",
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** JavaScript string escaping as Java's commons-lang does it, UTF-16 unit by unit, `'` included. */
const escapeJavaScript = (text: string): string =>
  Array.from({ length: text.length }, (_, index) => {
    const code = text.charCodeAt(index);
    const named = NAMED_ESCAPES[text.charAt(index)];
    if (named) return named;
    return code < 0x20 || code > 0x7e
      ? `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`
      : text.charAt(index);
  }).join('');

/** `$util` as AWS documents it for mapping templates. */
export const apiGatewayUtil = {
  escapeJavaScript,
  parseJson: (text: string): unknown => JSON.parse(text),
  urlEncode: (text: string): string => encodeURIComponent(text),
  urlDecode: (text: string): string => decodeURIComponent(text),
  base64Encode: (text: string): string => Buffer.from(text, 'utf8').toString('base64'),
  base64Decode: (text: string): string => Buffer.from(text, 'base64').toString('utf8'),
};

/** `$input` for a request. */
const inputOf = (request: TemplateRequest) => {
  const params = {
    path: { ...request.path },
    querystring: { ...request.querystring },
    header: { ...request.headers },
  };
  return {
    body: request.body ?? '',
    params: (name?: string) =>
      name === undefined
        ? params
        : (params.path[name] ?? params.querystring[name] ?? params.header[name] ?? ''),
    json: (path: string) => (path === '$' ? (request.body ?? '{}') : JSON.stringify(null)),
    path: (path: string) => (path === '$' ? JSON.parse(request.body || '{}') : undefined),
  };
};

/** A template rendered for a request in a context: its output, and what it set in `$context.responseOverride`. */
export interface Rendered {
  readonly output: string;
  readonly headerOverrides: Readonly<Record<string, string>>;
}

export const renderTemplate = (
  template: string,
  context: Readonly<Record<string, unknown>>,
  request: TemplateRequest = {},
): Rendered => {
  const fresh = { ...context, responseOverride: { header: {} as Record<string, string>, status: undefined } };
  const output = velocity.render(
    template,
    { context: fresh, input: inputOf(request), util: apiGatewayUtil, stageVariables: {} },
    {},
    { escape: false },
  );
  return { output, headerOverrides: fresh.responseOverride.header };
};
