import { once } from 'node:events';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventTargets } from '#tools/local/event-targets';

/**
 * The URLs of PETSTORE_EVENT_TARGETS as `npm start` delivers to them, over a file of events
 * written here: a URL that answers `status` keeps every body it was sent.
 */

const servers: Server[] = [];
const dirs: string[] = [];
let targets: EventTargets | undefined;
afterEach(async () => {
  await targets?.stop();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const startTarget = async (status: number) => {
  const received: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      received.push(body);
      response.writeHead(status).end();
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, received };
};

describe('the event targets of npm start', () => {
  it("wait out a failing URL's back-off whatever is published meanwhile, as an API destination does", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-targets-'));
    dirs.push(dir);
    const file = join(dir, 'events.ndjson');
    const [failing, working] = await Promise.all([startTarget(503), startTarget(204)]);
    // The first retry of the failing URL waits at least a minute: none may come within this test.
    targets = new EventTargets({
      file,
      stateFile: join(dir, 'events-targets.json'),
      urls: [failing.url, working.url],
      log: () => undefined,
      delivery: { firstBackoffMs: 120_000 },
    });
    targets.start();
    const publish = (event: number) => {
      appendFileSync(file, `${JSON.stringify({ event })}\n`);
      targets?.wake();
    };

    publish(1);
    await expect.poll(() => failing.received.length).toBe(1);
    // Events keep coming, each told to the targets: the working URL takes every one.
    for (let event = 2; event <= 6; event++) {
      publish(event);
      await expect.poll(() => working.received.length).toBe(event);
    }

    expect(failing.received).toEqual([JSON.stringify({ event: 1 })]);
  });
});
