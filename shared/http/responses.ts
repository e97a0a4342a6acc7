import type { APIGatewayProxyResult } from 'aws-lambda';

/** On every response, success or error: JSON, never sniffed as something else, never cached. */
export const RESPONSE_HEADERS = {
  'Content-Type': 'application/json',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
} as const;

export type ResponseHeaders = Readonly<Record<string, string | undefined>>;

/** A proxy result with a JSON body, or none (no `Content-Type`) for `undefined`; later headers win. */
export const jsonResponse = (
  status: number,
  body: unknown,
  ...headerSets: readonly (ResponseHeaders | undefined)[]
): APIGatewayProxyResult => {
  const { 'Content-Type': contentType, ...always } = RESPONSE_HEADERS;
  const headers: Record<string, string> = body === undefined ? { ...always } : { ...RESPONSE_HEADERS };
  for (const set of headerSets) {
    for (const [name, value] of Object.entries(set ?? {})) if (value !== undefined) headers[name] = value;
  }
  return { statusCode: status, headers, body: body === undefined ? '' : JSON.stringify(body) };
};

/** A handler's answers, their status a literal type for `ResultOf` to check with the body. */
export function ok<B>(body: B): { readonly status: 200; readonly body: B };
export function ok<B, H extends Readonly<Record<string, string>>>(
  body: B,
  headers: H,
): { readonly status: 200; readonly body: B; readonly headers: H };
export function ok<B>(body: B, headers?: Readonly<Record<string, string>>) {
  return headers ? { status: 200, body, headers } : { status: 200, body };
}
export const created = <B, H extends Readonly<Record<string, string>>>(body: B, headers: H) =>
  ({ status: 201, body, headers }) as const;
export function noContent(): { readonly status: 204 };
export function noContent<H extends Readonly<Record<string, string>>>(
  headers: H,
): { readonly status: 204; readonly headers: H };
export function noContent(headers?: Readonly<Record<string, string>>) {
  return headers ? { status: 204, headers } : { status: 204 };
}
/** 304 Not Modified (RFC 9110 §15.4.5): no body, and the headers a 200 would carry that name the version. */
export const notModified = <H extends Readonly<Record<string, string>>>(headers: H) =>
  ({ status: 304, headers }) as const;
