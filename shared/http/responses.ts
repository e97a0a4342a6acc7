import type { APIGatewayProxyResult } from 'aws-lambda';

/** On every response, success or error: JSON, never sniffed as something else, never cached. */
export const RESPONSE_HEADERS = {
  'Content-Type': 'application/json',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
} as const;

export type ResponseHeaders = Readonly<Record<string, string | undefined>>;

/** A proxy result with a JSON body; later header sets override earlier ones, `undefined` values are left out. */
export const jsonResponse = (
  status: number,
  body: unknown,
  ...headerSets: readonly (ResponseHeaders | undefined)[]
): APIGatewayProxyResult => {
  const headers: Record<string, string> = { ...RESPONSE_HEADERS };
  for (const set of headerSets) {
    for (const [name, value] of Object.entries(set ?? {})) if (value !== undefined) headers[name] = value;
  }
  return { statusCode: status, headers, body: JSON.stringify(body) };
};

/**
 * A handler's answers, with their status as a literal type: the operation's `ResultOf` then
 * checks both the status (one the descriptor declares) and the body (its schema's type).
 */
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
