import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import type { ObservedExchange } from '#tools/contract/api-client';
import { responseHeaderProblems } from '#tools/contract/response-headers';
import { main as runKeysCommand } from '#tools/keys/keys';
import { freePort } from '#tools/local/dynamodb-local';
import { isRunning, parentOf } from '#tools/local/processes';
import { type AcknowledgedWrite, eventLogProblems, readEventLog } from '../support/event-log';
import { checkedClient } from '../support/local-api';

/**
 * `npm start` as a user runs it: a separate process with its own embedded DynamoDB Local.
 * (Started with the command line of the npm script, `node --import tsx tools/local/start.ts`.)
 */

interface Server {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly baseUrl: string;
}

const dataDirs: string[] = [];
const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-start-'));
  dataDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

const START = ['--import', 'tsx', 'tools/local/start.ts'];

/** The environment of a user's shell: none of the test run's DynamoDB or table settings. */
const userEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const name of ['DYNAMODB_ENDPOINT', 'PETS_TABLE_NAME', 'COUNTERS_TABLE_NAME', 'API_KEYS_TABLE_NAME']) {
    delete env[name];
  }
  return env;
};

/**
 * How long one `npm start` may take to come up, or DynamoDB Local to be back: 1.5 s on an idle
 * 2-core machine, 6 to 8 s with a load average of 10, and up to about 25 s when the whole of
 * `npm test` ran beside a busy loop (load average 13: a test of two starts and a restart took
 * 77 s). This allows several times the worst seen; tests get a multiple of it.
 */
const START_BUDGET_MS = 120_000;

/**
 * Resolves once `text` is in the output, from character `from` on (it is printed as things
 * happen: no fixed wait).
 */
const outputIncludes = (
  child: ChildProcess,
  output: () => string,
  text: string,
  timeoutMs: number,
  from = 0,
): Promise<void> =>
  new Promise((resolve, reject) => {
    const streams = [child.stdout, child.stderr];
    const done = (error?: Error) => {
      for (const stream of streams) stream?.off('data', check);
      child.off('exit', exited);
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    const check = () => {
      if (output().includes(text, from)) done();
    };
    const exited = (code: number | null) =>
      // What it printed before it exited may still be on its way: look once more, after it.
      setImmediate(() =>
        output().includes(text, from)
          ? done()
          : done(new Error(`npm start exited with ${code}:\n${output()}`)),
      );
    const timer = setTimeout(
      () => done(new Error(`npm start never printed "${text}" within ${timeoutMs} ms:\n${output()}`)),
      timeoutMs,
    );
    for (const stream of streams) stream?.on('data', check);
    child.once('exit', exited);
    check();
  });

const startServer = async (env: Record<string, string>, viaNpm = false): Promise<Server> => {
  const port = await freePort();
  const child = spawn(viaNpm ? 'npm' : process.execPath, viaNpm ? ['start', '--silent'] : START, {
    cwd: PROJECT_ROOT,
    env: { ...userEnv(), POWERTOOLS_LOG_LEVEL: 'DEBUG', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await outputIncludes(child, () => output, 'Stop with Ctrl+C.', START_BUDGET_MS).catch((error: unknown) => {
    // A server that never came up is stopped as a user's is, so it leaves nothing behind (its
    // DynamoDB Local and its scratch directory go with it).
    child.kill('SIGTERM');
    throw error;
  });
  return { child, output: () => output, baseUrl: `http://127.0.0.1:${port}/v1` };
};

/**
 * Resolves once the server has printed `text`, after the first `from` characters of its output if
 * given (it prints as things happen: no fixed wait).
 */
const printed = (server: Server, text: string, from = 0): Promise<void> =>
  outputIncludes(server.child, server.output, text, START_BUDGET_MS, from);

const stopServer = async (server: Server, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill(signal);
  return exited;
};

const javaPids = (dataDir: string): string[] => {
  const result = spawnSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dataDir}`], { encoding: 'utf8' });
  return result.stdout.split('\n').filter(Boolean);
};

/** The row of key `keyId` in what `npm run keys -- list` printed, by the columns of its header. */
const keyRow = (lines: readonly string[], keyId: string): Record<string, string> => {
  const [header = '', ...rows] = lines;
  const row = rows.find((line) => line.startsWith(`${keyId} `)) ?? '';
  const titles = header.split(/ {2,}/);
  const starts = titles.map((title) => header.indexOf(title));
  return Object.fromEntries(
    titles.map((title, index) => [title, row.slice(starts[index], starts[index + 1]).trim()]),
  );
};

/** Whether something accepts connections on `port` of this machine. */
const answers = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const keyIn = (dataDir: string) => readFileSync(join(dataDir, 'api-key'), 'utf8').trim();

/**
 * A create as a careful client sends it: with an Idempotency-Key, and again after Retry-After
 * while it is answered 503 (a loaded machine's first requests can outlast the deadline).
 */
const createAsAClientWould = async (
  client: ReturnType<typeof checkedClient>,
  body: unknown,
  idempotencyKey: string,
): Promise<ObservedExchange> => {
  for (let attempt = 1; ; attempt++) {
    const answer = await client.post('/pets', body, { headers: { 'Idempotency-Key': idempotencyKey } });
    if (answer.status !== 503 || attempt === 5) return answer;
    await new Promise((resolve) =>
      setTimeout(resolve, 1_000 * Number(answer.headers.get('retry-after') ?? 1)),
    );
  }
};

describe('npm start', () => {
  // Each case runs its own npm starts, as many as the life it follows needs (start-ups, restarts,
  // a lock, signals): they run side by side, as separate users' servers would.

  // One data directory through three servers and two DynamoDB Local restarts: what a user's data,
  // key and lock go through across restarts. The servers end as a user's do: Ctrl+C, killed with
  // SIGKILL (the next takes over its stale lock), SIGTERM. (This was three cases of two servers
  // each: the refused second server and the take-over had a case and two servers of their own.)
  it.concurrent(
    'serves the API, lets a read-only key made with npm run keys -- --local read and refuses its changes with 403, refuses a second server on its data directory in one sentence, keeps data and a revoked key (revoked, with its creation date) across DynamoDB Local restarts, Ctrl+C and SIGKILL, takes over from the killed server, and leaves no Java process behind',
    async ({ expect }) => {
      const dataDir = newDataDir();
      const databaseOf = (server: Server) => server.output().match(/DynamoDB Local at (\S+),/)?.[1] ?? '';
      /** `npm run keys -- <args> --endpoint <the server's DynamoDB Local> --table petstore-local-apikeys`. */
      const keys = async (server: Server, ...args: string[]) => {
        const out: string[] = [];
        const code = await runKeysCommand(
          [...args, '--endpoint', databaseOf(server), '--table', 'petstore-local-apikeys'],
          {
            out: (line) => out.push(line),
            err: () => undefined,
          },
        );
        return { code, out };
      };

      const first = await startServer({ PETSTORE_DATA_DIR: dataDir });
      const key = keyIn(dataDir);
      expect(first.output()).toContain(`API key (generated, kept in ${join(dataDir, 'api-key')}): ${key}`);
      expect(statSync(join(dataDir, 'api-key')).mode & 0o077).toBe(0);
      const created = await createAsAClientWould(
        checkedClient(first.baseUrl, key),
        { name: 'Persistent', categoryId: 4 },
        `persistent-${Date.now()}`,
      );
      expect(created.status).toBe(201);
      const pet = created.json as { id: number };
      const firstJava = javaPids(dataDir);
      expect(firstJava).toHaveLength(1);
      const listed = await keys(first, 'list');
      const keyId = listed.out[1]?.split(/\s+/)[0] ?? '';

      // A read-only key made as a user would, the server found from its data directory's lock: it
      // lists and gets; its changes are API Gateway's 403, and change nothing.
      const made: string[] = [];
      const createdReader = await runKeysCommand(
        ['create', 'reader', '--scope', 'read:pets', '--local', '--json'],
        { out: (line) => made.push(line), err: () => undefined, env: { PETSTORE_DATA_DIR: dataDir } },
      );
      const reader = JSON.parse(made[0] ?? '{}') as { key: string; scopes: string[]; plan: string };
      expect([createdReader, reader.scopes, reader.plan]).toEqual([0, ['read:pets'], 'standard']);
      const asReader = checkedClient(first.baseUrl, reader.key);
      expect((await asReader.get('/pets')).status).toBe(200);
      const readFirst = await asReader.get(`/pets/${pet.id}`);
      expect(readFirst.status).toBe(200);
      const ifMatch = { 'If-Match': readFirst.headers.get('etag') ?? '' };
      const refused = [
        await asReader.post('/pets', { name: 'Refused', categoryId: 4 }),
        await asReader.request(`/pets/${pet.id}`, {
          method: 'PATCH',
          headers: { ...ifMatch, 'Content-Type': 'application/merge-patch+json' },
          body: JSON.stringify({ status: 'sold' }),
        }),
        await asReader.request(`/pets/${pet.id}`, { method: 'DELETE', headers: ifMatch }),
      ];
      expect(refused.map((answer) => [answer.status, (answer.json as { code?: string }).code])).toEqual(
        Array(3).fill([403, 'FORBIDDEN']),
      );
      expect((await checkedClient(first.baseUrl, key).get(`/pets/${pet.id}`)).json).toEqual(readFirst.json);

      // A second server on the directory is refused in one sentence, and so is npm run dev, which
      // takes the directory before it starts its DynamoDB Local; the first keeps its one Java.
      const firstPort = new URL(first.baseUrl).port;
      const refusal = `Cannot start: Another npm start (PID ${first.child.pid}, API port ${firstPort}) is using the data directory ${dataDir}: stop it (Ctrl+C where it runs, or kill ${first.child.pid}), or set PETSTORE_DATA_DIR to another directory.`;
      for (const args of [START, [...START, '--dev']]) {
        const refused = spawnSync(process.execPath, args, {
          cwd: PROJECT_ROOT,
          env: { ...userEnv(), PETSTORE_DATA_DIR: dataDir, PORT: String(await freePort()) },
          encoding: 'utf8',
          timeout: START_BUDGET_MS,
        });
        expect([args, refused.status, refused.stdout, refused.stderr.trim().split('\n')]).toEqual([
          args,
          1,
          '',
          [refusal],
        ]);
      }
      expect(javaPids(dataDir)).toEqual(firstJava);

      // Ctrl+C.
      expect(await stopServer(first, 'SIGINT')).toBe(0);
      expect(javaPids(dataDir)).toEqual([]);

      const second = await startServer({ PETSTORE_DATA_DIR: dataDir });
      try {
        expect(keyIn(dataDir)).toBe(key);
        const client = checkedClient(second.baseUrl, key);
        const read = await client.get(`/pets/${pet.id}`);
        expect(read.status).toBe(200);
        expect(read.json).toEqual({
          id: pet.id,
          name: 'Persistent',
          categoryId: 4,
          status: 'available',
        });

        // DynamoDB Local killed under the running server: started again, same data, and said so.
        const [java = ''] = javaPids(dataDir);
        process.kill(Number(java), 'SIGTERM');
        await printed(second, 'DynamoDB Local is back');
        expect(second.output()).toContain(
          `DynamoDB Local exited with code 143; starting it again on port ${new URL(databaseOf(second) || 'http://x:0').port} with the data in ${join(dataDir, 'dynamodb')}`,
        );
        expect(javaPids(dataDir)).toHaveLength(1);
        expect(javaPids(dataDir)).not.toContain(java);
        const again = await client.get(`/pets/${pet.id}`);
        expect(again.status).toBe(200);
        expect(again.json).toMatchObject({ id: pet.id, name: 'Persistent' });
        const next = await createAsAClientWould(
          client,
          { name: 'Next', categoryId: 4 },
          `next-${Date.now()}`,
        );
        expect((next.json as { id: number }).id).toBeGreaterThan(pet.id);

        // The key revoked, then DynamoDB Local killed again (SIGKILL) and started again by the
        // server, which then checks the tables and the key.
        expect((await keys(second, 'revoke', keyId)).code).toBe(0);
        expect((await client.get('/pets')).status).toBe(401);
        const [java2 = ''] = javaPids(dataDir);
        const restartsSoFar = second.output().length;
        process.kill(Number(java2), 'SIGKILL');
        await printed(second, 'DynamoDB Local is back', restartsSoFar);
        expect((await client.get('/pets')).status).toBe(401);
      } finally {
        // Killed without a chance to clean up: its DynamoDB Local ends with it, and its lock is stale.
        second.child.kill('SIGKILL');
      }
      await expect.poll(() => javaPids(dataDir), { timeout: START_BUDGET_MS, interval: 200 }).toEqual([]);

      const third = await startServer({ PETSTORE_DATA_DIR: dataDir });
      try {
        expect(third.output()).toContain(
          `The server that held ${dataDir} (PID ${second.child.pid}) is gone: taking the directory over`,
        );
        expect(javaPids(dataDir)).toHaveLength(1);
        expect((await checkedClient(third.baseUrl, key).get('/pets')).status).toBe(401);
        expect(third.output()).toContain(
          `API key (from ${join(dataDir, 'api-key')}): ${key}\n  This key was revoked at `,
        );
        const relisted = await keys(third, 'list');
        const before = keyRow(listed.out, keyId);
        const now = keyRow(relisted.out, keyId);

        expect(relisted.code).toBe(0);
        expect(before.REVOKED).toBe('-');
        // The same record: its creation date kept through the restarts, and revoked.
        expect(now).toEqual({ ...before, REVOKED: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      } finally {
        expect(await stopServer(third)).toBe(0);
      }
      expect(javaPids(dataDir)).toEqual([]);
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
    },
    5 * START_BUDGET_MS,
  );

  // Two servers, one after the other, on a DynamoDB already running (DYNAMODB_ENDPOINT), as a user
  // with one of their own would: the first one's running life, then what the second finds.
  it.concurrent(
    'accepts the key from PETSTORE_API_KEY, logs a line per request and never logs the key, not even from a query string; on a DynamoDB it shares, says it holds no lock there and keeps a stored key on its plan, saying how to change it',
    async ({ expect }) => {
      const key = `psk_shared-${Date.now()}`;
      const endpoint = inject('dynamoDbEndpoint');
      const env = { PETSTORE_API_KEY: key, DYNAMODB_ENDPOINT: endpoint };
      const server = await startServer({ ...env, PETSTORE_DATA_DIR: newDataDir() });
      try {
        const ok = await checkedClient(server.baseUrl, key).get('/pets?limit=1');
        const refused = await checkedClient(server.baseUrl, 'psk_wrong-key').get('/pets');
        const keyInQuery = await checkedClient(server.baseUrl, key).get(`/pets?api_key=${key}`);
        expect(ok.status).toBe(200);
        expect(refused.status).toBe(401);
        expect(keyInQuery.status).toBe(400);
        // The pages served beside the API carry the headers of every response too.
        for (const page of ['/docs', '/openapi.json', '/openapi.yaml']) {
          const response = await fetch(new URL(page, server.baseUrl));
          expect([page, response.status, responseHeaderProblems(response)]).toEqual([page, 200, []]);
        }
        // Each answer is logged once it is sent: wait for the lines, not for a while.
        await printed(server, ' GET /v1/pets 200 ');
        await printed(server, ' GET /v1/pets 401 ');
        await printed(server, ' GET /v1/pets 400 ');

        const lines = server.output().split('\n');
        // Where the logs go, and how to find a request's lines, said at start; the ids are there.
        expect(server.output()).toContain(
          "A request's lines: its id is the requestId of every Error; grep it",
        );
        for (const answer of [refused, keyInQuery]) {
          const { requestId } = answer.json as { requestId: string };
          // The gateway's line, and (at DEBUG, as here) the JSON lines of the authorizer or the function.
          expect(lines.filter((line) => line.endsWith(` ${requestId}`))).toHaveLength(1);
          expect(lines.some((line) => line.startsWith('{') && line.includes(`"${requestId}"`))).toBe(true);
        }
        expect(lines.some((line) => / GET \/v1\/pets 200 /.test(line))).toBe(true);
        expect(lines.some((line) => / GET \/v1\/pets 401 /.test(line))).toBe(true);
        expect(lines.some((line) => / GET \/v1\/pets 400 /.test(line))).toBe(true);
        // The key shows in the start-up banner, which is there to tell it; in no log line after it.
        const afterBanner = lines.slice(lines.findIndex((line) => line.startsWith('Stop with')) + 1);
        expect(afterBanner.join('\n')).not.toContain(key);
        expect(server.output()).not.toContain('psk_wrong-key');
      } finally {
        await stopServer(server);
      }

      const second = await startServer({
        ...env,
        PETSTORE_DATA_DIR: newDataDir(),
        PETSTORE_API_KEY_PLAN: 'trial',
      });
      try {
        const lines = second.output().split('\n');
        const move = /npm run keys -- (move .*)$/m.exec(second.output())?.[1]?.split(' ') ?? [];
        const before = await checkedClient(second.baseUrl, key).get('/pets?limit=1');
        const moved = await runKeysCommand(move, { out: () => undefined, err: () => undefined });
        const after = await checkedClient(second.baseUrl, key).get('/pets?limit=1');

        expect(lines).toContain(
          `Database: DynamoDB at ${endpoint} (DYNAMODB_ENDPOINT), not this server's: it takes no lock on it (a data directory's lock covers the DynamoDB Local run there), adds the tables and key record it misses, and rewrites none it finds`,
        );
        expect(lines).toContain(
          "Its plan: local, enforced as API Gateway would (PETSTORE_API_KEY_PLAN=trial tries a client's back-off)",
        );
        expect(move).toEqual([
          'move',
          expect.stringMatching(/^key-[0-9a-f]{12}$/),
          '--plan',
          'trial',
          '--endpoint',
          endpoint,
          '--table',
          'petstore-local-apikeys',
        ]);
        // The plan changes with the command it names, and only then.
        expect(before.headers.get('ratelimit-policy')).toMatch(/^"local";/);
        expect(moved).toBe(0);
        expect(after.headers.get('ratelimit-policy')).toMatch(/^"trial";/);
      } finally {
        await stopServer(second);
      }
    },
    3 * START_BUDGET_MS,
  );

  // What a write's event goes through when the server is killed: the publisher's place in the
  // stream, events.ndjson and each target's place in it, all kept in the data directory.
  it.concurrent(
    "writes every acknowledged write's event to events.ndjson and POSTs it to PETSTORE_EVENT_TARGETS, none lost after kill -9 during writes and a restart, a copy the same line",
    async ({ expect }) => {
      const dataDir = newDataDir();
      const received: string[] = [];
      const target = createHttpServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        request.on('end', () => {
          received.push(body);
          response.writeHead(200).end();
        });
      }).listen(0, '127.0.0.1');
      await once(target, 'listening');
      const targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}/pets`;
      const env = { PETSTORE_DATA_DIR: dataDir, PETSTORE_EVENT_TARGETS: targetUrl };
      const eventsFile = join(dataDir, 'events.ndjson');
      const acknowledged: AcknowledgedWrite[] = [];
      const applied: AcknowledgedWrite[] = [];
      try {
        const first = await startServer(env);
        expect(first.output()).toContain(
          `Events: PetCreated, PetChanged and PetRemoved from the pets table's stream, each a line of ${eventsFile} as EventBridge delivers it to a target\n  and POSTed to ${targetUrl} (PETSTORE_EVENT_TARGETS)`,
        );
        const client = checkedClient(first.baseUrl, keyIn(dataDir));
        const versions = new Map<number, number>();
        /**
         * A write sent again while it is answered 503 (a busy machine's deadline), as a client
         * would: a 503 may hide an applied write, so `settled` says, from the pet, whether it was.
         */
        const write = async (
          send: () => Promise<ObservedExchange>,
          settled: () => Promise<boolean>,
        ): Promise<number> => {
          for (let attempt = 1; ; attempt++) {
            const { status, headers } = await send();
            if (status !== 503) return status;
            if (await settled()) return 0;
            if (attempt === 5) return status;
            await new Promise((resolve) =>
              setTimeout(resolve, 1_000 * Number(headers.get('retry-after') ?? 1)),
            );
          }
        };
        const versionOf = async (id: number) => {
          const { status, headers } = await client.get(`/pets/${id}`);
          return status === 404 ? 'removed' : Number(headers.get('etag')?.replaceAll('"', ''));
        };
        // Creates (with a key, so that a repeat after a 503 adds nothing), changes (one refused),
        // removals: each acknowledged one noted with the version it made.
        for (let round = 0; round < 4; round++) {
          const key = `events-${round}-${Date.now()}`;
          let created: ObservedExchange | undefined;
          await write(
            async () => {
              created = await client.post(
                '/pets',
                { name: `events ${round}`, categoryId: 1 },
                { headers: { 'Idempotency-Key': key } },
              );
              return created;
            },
            async () => false,
          );
          const { id } = (created?.json ?? {}) as { id: number };
          acknowledged.push({ petId: id, version: 1 });
          const patch = (status: string) => () =>
            client.request(`/pets/${id}`, {
              method: 'PATCH',
              body: { status },
              headers: { 'If-Match': '"1"' },
            });
          const changed = await write(patch('sold'), async () => (await versionOf(id)) === 2);
          const stale = await write(patch('pending'), async () => false);
          expect([created?.status, changed === 0 ? 200 : changed, stale]).toEqual([201, 200, 412]);
          acknowledged.push({ petId: id, version: 2 });
          versions.set(id, 2);
          if (round % 2 === 1) {
            const removed = await write(
              () => client.request(`/pets/${id}`, { method: 'DELETE', headers: { 'If-Match': '"2"' } }),
              async () => (await versionOf(id)) === 'removed',
            );
            expect(removed === 0 ? 204 : removed).toBe(204);
            acknowledged.push({ petId: id, version: 3 });
            versions.delete(id);
          }
        }
        // Killed as a change is on its way: it may or may not have been applied.
        const [pending] = [...versions.keys()];
        if (pending === undefined) throw new Error('No pet left to change');
        applied.push({ petId: pending, version: 3 });
        const inFlight = client
          .request(`/pets/${pending}`, {
            method: 'PATCH',
            body: { name: 'in flight' },
            headers: { 'If-Match': '"2"' },
          })
          .catch(() => undefined);
        first.child.kill('SIGKILL');
        await Promise.all([once(first.child, 'exit'), inFlight]);
        await expect.poll(() => javaPids(dataDir), { timeout: START_BUDGET_MS, interval: 200 }).toEqual([]);

        const second = await startServer(env);
        try {
          await expect
            .poll(() => eventLogProblems(readEventLog(eventsFile), acknowledged, applied), {
              timeout: START_BUDGET_MS,
              interval: 200,
            })
            .toEqual([]);
          const lines = () => new Set(readFileSync(eventsFile, 'utf8').trim().split('\n'));
          await expect
            .poll(() => new Set(received), { timeout: START_BUDGET_MS, interval: 200 })
            .toEqual(lines());
        } finally {
          expect(await stopServer(second)).toBe(0);
        }
      } finally {
        target.close();
      }
    },
    3 * START_BUDGET_MS,
  );

  it.concurrent(
    'stops with npm when npm itself is sent SIGTERM',
    async ({ expect }) => {
      const dataDir = newDataDir();
      const server = await startServer({ PETSTORE_DATA_DIR: dataDir }, true);
      expect(javaPids(dataDir)).toHaveLength(1);

      await stopServer(server);

      // No event tells when another process's child is gone: look every 200 ms (it notices its
      // parent went within a second, then stops DynamoDB Local).
      await expect.poll(() => javaPids(dataDir), { timeout: START_BUDGET_MS, interval: 200 }).toEqual([]);
    },
    2 * START_BUDGET_MS,
  );

  it.concurrent(
    'stops, DynamoDB Local with it, when npm itself is killed with SIGKILL',
    async ({ expect }) => {
      const dataDir = newDataDir();
      const server = await startServer({ PETSTORE_DATA_DIR: dataDir }, true);
      const port = Number(new URL(server.baseUrl).port);
      const [java = ''] = javaPids(dataDir);
      expect(await answers(port)).toBe(true);

      try {
        // npm runs the script through `sh -c`, which outlives npm: the server must watch npm too.
        await stopServer(server, 'SIGKILL');

        // No event tells when another process's child is gone: look every 200 ms.
        await expect.poll(() => answers(port), { timeout: START_BUDGET_MS, interval: 200 }).toBe(false);
        await expect.poll(() => javaPids(dataDir), { timeout: START_BUDGET_MS, interval: 200 }).toEqual([]);
      } finally {
        // Should it have stayed: the server (Java's parent) and Java, so no test leaves them behind.
        for (const pid of [parentOf(Number(java)), Number(java)]) {
          if (pid !== undefined && isRunning(pid)) process.kill(pid, 'SIGKILL');
        }
      }
    },
    2 * START_BUDGET_MS,
  );

  it(
    'fails at once with what to install when Java is missing',
    () => {
      const result = spawnSync(
        process.execPath,
        [join(PROJECT_ROOT, 'node_modules/tsx/dist/cli.mjs'), 'tools/local/start.ts'],
        {
          cwd: PROJECT_ROOT,
          env: { ...userEnv(), PATH: '/nonexistent', PETSTORE_DATA_DIR: newDataDir(), PORT: '0' },
          encoding: 'utf8',
          timeout: START_BUDGET_MS,
        },
      );

      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Java 17');
      expect(result.stderr).toContain('DYNAMODB_ENDPOINT');
    },
    START_BUDGET_MS,
  );
});

describe('npm start with a setting that cannot work', () => {
  /** Runs `npm start`'s command line to its end: exit code and what it printed. */
  const attempt = async (env: Record<string, string>) => {
    const child = spawn(process.execPath, START, {
      cwd: PROJECT_ROOT,
      env: { ...userEnv(), PETSTORE_DATA_DIR: newDataDir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, stdout, lines: stderr.trim().split('\n') };
  };

  it(
    'stops before starting anything, with one line naming the setting to change, for each',
    async () => {
      // A port something else listens on; a loopback server that accepts and never answers.
      const busy = createServer(() => undefined).listen(0, '127.0.0.1');
      await once(busy, 'listening');
      const busyPort = (busy.address() as { port: number }).port;
      const refusingPort = await freePort();
      // Java 11 first on PATH, as on a machine whose default JDK is old.
      const oldJava = newDataDir();
      writeFileSync(
        join(oldJava, 'java'),
        '#!/bin/sh\nif [ "$1" = "--list-modules" ]; then printf "java.base@11.0.2\\n"; exit 0; fi\necho \'openjdk version "11.0.2"\' >&2\n',
      );
      chmodSync(join(oldJava, 'java'), 0o755);
      try {
        // One after the other, as a person would meet them. A stalled DynamoDB is given up on after
        // REACHABLE_TIMEOUT_MS (1 s); nothing here waits for DynamoDB Local, which never starts.
        const results = [];
        const settings: Record<string, string>[] = [
          { PETSTORE_DATA_DIR: '/proc/petstore-data' },
          { PORT: String(busyPort) },
          { DYNAMODB_ENDPOINT: `http://127.0.0.1:${refusingPort}` },
          { DYNAMODB_ENDPOINT: `http://127.0.0.1:${busyPort}`, PORT: '0' },
          { PETSTORE_CORS_ORIGINS: 'localhost:5173' },
          { PETSTORE_API_KEY: 'two words' },
          { PATH: `${oldJava}:${process.env.PATH}`, PORT: '0' },
        ];
        for (const env of settings) results.push(await attempt(env));

        expect(results.map(({ code, lines }) => ({ code, lines }))).toEqual([
          {
            code: 1,
            lines: [
              'Cannot start: PETSTORE_DATA_DIR=/proc/petstore-data cannot be used: cannot create /proc/petstore-data (ENOENT). Set PETSTORE_DATA_DIR to a directory you can write to.',
            ],
          },
          {
            code: 1,
            lines: [
              `Cannot start: Port ${busyPort} on 127.0.0.1 is in use: stop what holds it, or set PORT to a free port (e.g. PORT=${busyPort + 1}).`,
            ],
          },
          {
            code: 1,
            lines: [
              `Cannot start: No DynamoDB answers at DYNAMODB_ENDPOINT=http://127.0.0.1:${refusingPort} (ECONNREFUSED): start it, fix DYNAMODB_ENDPOINT, or unset it to use the embedded DynamoDB Local.`,
            ],
          },
          {
            code: 1,
            lines: [
              `Cannot start: No DynamoDB answers at DYNAMODB_ENDPOINT=http://127.0.0.1:${busyPort} (ETIMEDOUT): start it, fix DYNAMODB_ENDPOINT, or unset it to use the embedded DynamoDB Local.`,
            ],
          },
          {
            code: 1,
            lines: [
              'Cannot start: PETSTORE_CORS_ORIGINS: "localhost:5173" is not an origin: an origin starts with http:// or https://, as in http://localhost:5173 (did you mean http://localhost:5173?)',
            ],
          },
          {
            code: 1,
            lines: [
              'Cannot start: PETSTORE_API_KEY must be a token of letters, digits and -._~+/ characters (a bearer token the authorizer accepts, like the psk_… keys npm start generates)',
            ],
          },
          {
            code: 1,
            lines: [
              'Cannot start: DynamoDB Local needs Java 17 or newer, and `java` on PATH is Java 11. Install Java 17 or newer (Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`), or set DYNAMODB_ENDPOINT to a DynamoDB you already run.',
            ],
          },
        ]);
        // npm start prints nothing to stdout until DynamoDB Local is starting: nothing was started.
        for (const { stdout } of results) expect(stdout).toBe('');
      } finally {
        busy.close();
      }
    },
    2 * START_BUDGET_MS,
  );

  it(
    "stops on a Node.js older than package.json's engines in one sentence, before loading anything that needs a newer one",
    () => {
      // Node 18 as far as anything in the process can tell.
      const node18 = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.20.4"})';
      const result = spawnSync(process.execPath, ['--import', node18, ...START], {
        cwd: PROJECT_ROOT,
        env: { ...userEnv(), PETSTORE_DATA_DIR: newDataDir(), PORT: '0' },
        encoding: 'utf8',
        timeout: START_BUDGET_MS,
      });

      expect([result.status, result.stdout, result.stderr.trim().split('\n')]).toEqual([
        1,
        '',
        [
          'Cannot start: Node.js 18.20.4 is older than this project needs (>=20.19, package.json "engines"): install Node.js 20.19.0 or newer.',
        ],
      ]);
    },
    START_BUDGET_MS,
  );

  it(
    'leaves nothing of its own in the temporary directory when it fails after it began rendering the reference',
    async () => {
      const temporary = newDataDir();
      const dataDir = newDataDir();
      // An empty cache, so that this start renders the reference (a page rendered before would serve).
      const cacheDir = newDataDir();
      writeFileSync(join(dataDir, 'api-key'), 'not a key!\n');

      // The kept key is checked once the reference is being rendered (in a directory of its own there).
      const { code, lines } = await attempt({
        TMPDIR: temporary,
        PETSTORE_DATA_DIR: dataDir,
        PETSTORE_CACHE_DIR: cacheDir,
        DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
      });

      expect([code, lines]).toEqual([
        1,
        [
          `Cannot start: The key in ${join(dataDir, 'api-key')} must be a token of letters, digits and -._~+/ characters (a bearer token the authorizer accepts, like the psk_… keys npm start generates): fix it, or delete the file for a new one`,
        ],
      ]);
      expect(readdirSync(temporary).filter((name) => name.startsWith('petstore-'))).toEqual([]);
      // Nor a page of the render it cut short: the next start renders it whole.
      expect(readdirSync(cacheDir).flatMap((name) => readdirSync(join(cacheDir, name)))).not.toContainEqual(
        expect.stringMatching(/\.html$/),
      );
    },
    START_BUDGET_MS,
  );
});
