import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { MAX_BODY_BYTES } from '#shared/http/limits';
import { freePort } from '#tools/local/dynamodb-local';
import { OPENAPI_YAML_PATH } from '#tools/openapi/document-file';

/**
 * The service seen through Prism, a third-party OpenAPI validator, as a proxy in front of it:
 * every request and response of a representative set (each operation, its success and each
 * error the service produces) is validated by Prism against the document, and any response
 * violation Prism reports (header `sl-violations`) is a failure. Prism runs without `--errors`
 * so that invalid requests still reach the service and its error answers get validated too;
 * request violations are expected exactly for the requests meant to be invalid.
 */

const PRISM_CLI = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');

export interface PrismViolation {
  readonly location: string[];
  readonly severity: string;
  readonly message: string;
}

interface PrismCase {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly status: number;
  /** Whether the document allows the request: a valid one must draw no request violation. */
  readonly validRequest: boolean;
}

export interface PrismResult {
  readonly name: string;
  readonly status: number;
  readonly violations: readonly PrismViolation[];
  /** Why the case fails; empty when it passes. */
  readonly problems: readonly string[];
}

export interface PrismReport {
  readonly results: readonly PrismResult[];
  readonly failures: readonly string[];
}

interface RunningPrism {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts `prism proxy <document> <upstream>` on a free local port and waits until it listens. */
export const startPrism = async (upstream: string, document = OPENAPI_YAML_PATH): Promise<RunningPrism> => {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [PRISM_CLI, 'proxy', document, upstream, '-p', String(port), '-h', '127.0.0.1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`Prism did not start within 30 s:\n${output}`)), 30_000);
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    exited.then(() => {
      clearTimeout(timer);
      fail(new Error(`Prism exited before listening:\n${output}`));
    });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
};

/** What the cases need from the service before they run: a pet to read, a page's next link. */
interface Fixtures {
  readonly petId: number;
  /** `/pets?…&cursor=…`: the target of a first page's Link, below the base path. */
  readonly nextPage: string;
}

const cases = (apiKey: string, { petId, nextPage }: Fixtures): PrismCase[] => {
  const auth = { Authorization: `Bearer ${apiKey}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const valid = true;
  const key = randomUUID();
  const idempotent = { ...json, 'Idempotency-Key': key };
  const cursor = new URLSearchParams(nextPage.split('?')[1]).get('cursor') ?? '';
  const altered = `${cursor.slice(0, 12)}${cursor[12] === 'A' ? 'B' : 'A'}${cursor.slice(13)}`;
  return [
    { name: 'listPets 200', method: 'GET', path: '/pets', headers: auth, status: 200, validRequest: valid },
    {
      name: 'listPets 200 with limit and status',
      method: 'GET',
      path: '/pets?limit=2&status=available',
      headers: auth,
      status: 200,
      validRequest: valid,
    },
    {
      name: 'listPets 400 (limit out of range)',
      method: 'GET',
      path: '/pets?limit=0',
      headers: auth,
      status: 400,
      validRequest: false,
    },
    {
      name: 'listPets 400 (unknown status)',
      method: 'GET',
      path: '/pets?status=lost',
      headers: auth,
      status: 400,
      validRequest: false,
    },
    {
      name: 'listPets 200 (the next page, from Link)',
      method: 'GET',
      path: nextPage,
      headers: auth,
      status: 200,
      validRequest: valid,
    },
    {
      name: 'listPets 400 (a cursor with characters outside base64url)',
      method: 'GET',
      path: '/pets?cursor=not*a*cursor',
      headers: auth,
      status: 400,
      validRequest: false,
    },
    {
      // Well formed to the document, which cannot know the integrity tag: the service refuses it.
      name: 'listPets 400 (an altered cursor)',
      method: 'GET',
      path: `/pets?limit=1&cursor=${altered}`,
      headers: auth,
      status: 400,
      validRequest: valid,
    },
    { name: 'listPets 401 (no key)', method: 'GET', path: '/pets', status: 401, validRequest: false },
    {
      name: 'createPet 201',
      method: 'POST',
      path: '/pets',
      headers: json,
      body: JSON.stringify({ name: 'Tom', categoryId: 7, status: 'pending' }),
      status: 201,
      validRequest: valid,
    },
    {
      name: 'createPet 201 (with an Idempotency-Key)',
      method: 'POST',
      path: '/pets',
      headers: idempotent,
      body: JSON.stringify({ name: 'Once', categoryId: 7 }),
      status: 201,
      validRequest: valid,
    },
    {
      name: 'createPet 201 (the same Idempotency-Key and body: replayed)',
      method: 'POST',
      path: '/pets',
      headers: idempotent,
      body: JSON.stringify({ name: 'Once', categoryId: 7 }),
      status: 201,
      validRequest: valid,
    },
    {
      name: 'createPet 422 (the same Idempotency-Key with another body)',
      method: 'POST',
      path: '/pets',
      headers: idempotent,
      body: JSON.stringify({ name: 'Twice', categoryId: 7 }),
      status: 422,
      validRequest: valid,
    },
    {
      name: 'createPet 400 (an Idempotency-Key over 255 characters)',
      method: 'POST',
      path: '/pets',
      headers: { ...json, 'Idempotency-Key': 'k'.repeat(256) },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      status: 400,
      validRequest: false,
    },
    {
      name: 'createPet 400 VALIDATION_FAILED',
      method: 'POST',
      path: '/pets',
      headers: json,
      body: JSON.stringify({ name: '', categoryId: 0 }),
      status: 400,
      validRequest: false,
    },
    {
      name: 'createPet 400 INVALID_JSON (no body)',
      method: 'POST',
      path: '/pets',
      headers: json,
      status: 400,
      validRequest: false,
    },
    {
      name: 'createPet 401 (no key)',
      method: 'POST',
      path: '/pets',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      status: 401,
      validRequest: false,
    },
    {
      // Invalid to the document too (name too long): Prism re-serialises a valid JSON body before
      // forwarding it, so no valid pet can reach the service at more than 16 KiB.
      name: 'createPet 413',
      method: 'POST',
      path: '/pets',
      headers: json,
      body: JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES), categoryId: 1 }),
      status: 413,
      validRequest: false,
    },
    {
      name: 'createPet 415',
      method: 'POST',
      path: '/pets',
      headers: { ...auth, 'Content-Type': 'text/plain' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      status: 415,
      validRequest: false,
    },
    {
      name: 'getPet 200 (deprecated)',
      method: 'GET',
      path: `/pets/${petId}`,
      headers: auth,
      status: 200,
      validRequest: valid,
    },
    {
      name: 'getPet 404',
      method: 'GET',
      path: '/pets/987654321',
      headers: auth,
      status: 404,
      validRequest: valid,
    },
    {
      name: 'getPet 400',
      method: 'GET',
      path: '/pets/abc',
      headers: auth,
      status: 400,
      validRequest: false,
    },
    { name: 'getPet 401 (no key)', method: 'GET', path: `/pets/${petId}`, status: 401, validRequest: false },
  ];
};

const send = async (prism: string, request: Omit<PrismCase, 'name' | 'status' | 'validRequest'>) => {
  const response = await fetch(`${prism}${request.path}`, {
    method: request.method,
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await response.text();
  const header = response.headers.get('sl-violations');
  return { response, text, violations: header ? (JSON.parse(header) as PrismViolation[]) : [] };
};

const judge = (
  test: PrismCase,
  status: number,
  text: string,
  violations: readonly PrismViolation[],
): string[] => {
  const problems: string[] = [];
  const onResponse = violations.filter((violation) => violation.location[0] === 'response');
  const onRequest = violations.filter(
    (violation) => violation.location[0] === 'request' && violation.severity === 'Error',
  );
  if (status !== test.status) problems.push(`answered ${status}, not ${test.status}: ${text.slice(0, 200)}`);
  for (const violation of onResponse) {
    problems.push(`response violation at ${violation.location.join('.')}: ${violation.message}`);
  }
  if (test.validRequest && onRequest.length > 0) {
    problems.push(`Prism finds this valid request invalid: ${onRequest.map((v) => v.message).join('; ')}`);
  }
  if (!test.validRequest && onRequest.length === 0) {
    problems.push('the document accepts this request, which the service refuses');
  }
  return problems;
};

/**
 * Sends the representative set through Prism in front of `upstream` (the API's base URL,
 * ending in `/v1`) and reports, per request, what Prism found.
 */
export const checkThroughPrism = async (options: {
  readonly upstream: string;
  readonly apiKey: string;
  readonly document?: string;
}): Promise<PrismReport> => {
  const prism = await startPrism(options.upstream, options.document);
  try {
    // Two pets, one to read back and a second page to follow; made directly, so the set below
    // stays the same on every run.
    const auth = { Authorization: `Bearer ${options.apiKey}` };
    const add = async (name: string) => {
      const created = await fetch(`${options.upstream}/pets`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, categoryId: 3 }),
      });
      return ((await created.json()) as { id: number }).id;
    };
    const petId = await add('Rex');
    await add('Tom');
    const firstPage = await fetch(`${options.upstream}/pets?limit=1`, { headers: auth });
    await firstPage.body?.cancel();
    const nextPage = /^<\/v1(\/pets\?[^>]+)>; rel="next"$/.exec(firstPage.headers.get('link') ?? '')?.[1];
    if (!nextPage) throw new Error('The first page of one pet has no Link to the next');
    const results: PrismResult[] = [];
    for (const test of cases(options.apiKey, { petId, nextPage })) {
      const { response, text, violations } = await send(prism.url, test);
      results.push({
        name: test.name,
        status: response.status,
        violations,
        problems: judge(test, response.status, text, violations),
      });
    }
    return {
      results,
      failures: results.flatMap(({ name, problems }) => problems.map((problem) => `${name}: ${problem}`)),
    };
  } finally {
    await prism.stop();
  }
};
