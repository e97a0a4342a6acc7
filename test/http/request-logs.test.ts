import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateApiKey } from '#shared/auth/api-key';
import { ALL_SCOPES, READ_SCOPE, scopeList } from '#shared/auth/scopes';
import { freePort } from '#tools/local/dynamodb-local';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import { localFunctions } from '#tools/local/local-stack';
import { jsonLines, writtenDuring } from '../support/output';
import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';

/**
 * What the logs say about a request, as the local server writes them: the real authorizer and
 * the real functions, their Powertools lines captured as written. The functions' DynamoDB is a
 * port nothing listens on, so every request fails for real (503) and is logged at ERROR, with
 * the authorizer's lines (INFO) before it; many at once, as a busy client sends them.
 */

type Line = Record<string, unknown>;

let tables: TestTables;
let key: string;
let keyId: string;
/** A key that holds `read:pets` only. */
let reader: { key: string; keyId: string };
let gateway: LocalGateway;
const gatewayLines: string[] = [];

beforeAll(async () => {
  tables = await createTestTables('request-logs');
  const generated = generateApiKey('logs');
  key = generated.key;
  keyId = generated.record.keyId;
  await apiKeysOf(tables).put(generated.record);
  const readOnly = generateApiKey('logs-reader');
  reader = { key: readOnly.key, keyId: readOnly.record.keyId };
  await apiKeysOf(tables).put({ ...readOnly.record, scopes: [READ_SCOPE] });
  const working = localFunctions({ endpoint: tables.endpoint, tables: tables.names, logLevel: 'INFO' });
  const unreachable = localFunctions({
    endpoint: `http://127.0.0.1:${await freePort()}`,
    tables: tables.names,
    logLevel: 'INFO',
  });
  gateway = await startLocalGateway({
    port: 0,
    authorizer: working.authorizer,
    handlers: unreachable.handlers,
    log: (line) => gatewayLines.push(line),
  });
});
afterAll(() => gateway.close());

describe('the logs of a request', () => {
  it('carry its request id on every line it causes, and concurrent requests never share one', async () => {
    const { result: answers, written } = await writtenDuring(() =>
      Promise.all(
        Array.from({ length: 40 }, async (_, index) => {
          const response = await fetch(`${gateway.baseUrl}/pets/${index + 1}`, {
            headers: { Authorization: `Bearer ${key}` },
          });
          return { status: response.status, body: (await response.json()) as { requestId: string } };
        }),
      ),
    );
    const lines = jsonLines<Line>(written);
    const ids = answers.map(({ body }) => body.requestId);
    /** The request a line names: the functions' by correlation_id, the authorizer's by its invocation. */
    const requestOf = (line: Line) => (line.correlation_id ?? line.function_request_id) as string;

    expect(answers.map(({ status }) => status)).toEqual(Array(40).fill(503));
    expect(new Set(ids).size).toBe(40);
    // Every line belongs to one of the requests, and each request has its authorizer's and its function's.
    expect(lines.filter((line) => !ids.includes(requestOf(line)))).toEqual([]);
    for (const id of ids) {
      const own = lines.filter((line) => requestOf(line) === id).map(({ message }) => message);
      expect([id, own.sort()]).toEqual([id, ['Key accepted', 'Request failed']]);
    }
    // No invocation's lines name two requests.
    const requestsOfInvocation = new Map<unknown, Set<string>>();
    for (const line of lines) {
      const requests = requestsOfInvocation.get(line.function_request_id) ?? new Set<string>();
      requests.add(requestOf(line));
      requestsOfInvocation.set(line.function_request_id, requests);
    }
    expect([...requestsOfInvocation.values()].filter((requests) => requests.size > 1)).toEqual([]);
    // The gateway's line of each request ends in its id.
    await vi.waitFor(() => {
      for (const id of ids) expect(gatewayLines.filter((line) => line.endsWith(` ${id}`))).toHaveLength(1);
    });
  });

  it('name the key that called and its scopes on every line of its function, and never the key', async () => {
    const full = { key, keyId, scopes: scopeList(ALL_SCOPES) };
    const readOnly = { ...reader, scopes: READ_SCOPE };
    const { result: answers, written } = await writtenDuring(() =>
      Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const caller = index % 2 === 0 ? full : readOnly;
          const response = await fetch(`${gateway.baseUrl}/pets/${index + 1}`, {
            headers: { Authorization: `Bearer ${caller.key}` },
          });
          const body = (await response.json()) as { requestId: string };
          return { status: response.status, requestId: body.requestId, caller };
        }),
      ),
    );
    const functionLines = jsonLines<Line>(written).filter((line) => line.correlation_id !== undefined);

    expect(answers.map(({ status }) => status)).toEqual(Array(20).fill(503));
    expect(functionLines).toHaveLength(20);
    for (const { requestId, caller } of answers)
      expect(functionLines.filter((line) => line.correlation_id === requestId)).toEqual([
        expect.objectContaining({ message: 'Request failed', keyId: caller.keyId, scopes: caller.scopes }),
      ]);
    for (const secret of [full.key, readOnly.key])
      expect([written, ...gatewayLines].filter((text) => text.includes(secret))).toEqual([]);
  });
});
