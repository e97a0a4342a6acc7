import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * EventBridge's PutEvents as the SDK calls it (the AWS JSON 1.1 protocol, `X-Amz-Target:
 * AWSEvents.PutEvents`) on loopback, every entry taken: what the publisher and its baseline call
 * in the bench, through `AWS_ENDPOINT_URL_EVENTBRIDGE`, so both make the same call and neither
 * leaves the machine.
 */
export const startEventBridgeStandIn = async () => {
  let entries = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const sent = (JSON.parse(body || '{}') as { Entries?: unknown[] }).Entries ?? [];
      entries += sent.length;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({
          FailedEntryCount: 0,
          Entries: sent.map((_, index) => ({ EventId: `bench-${entries}-${index}` })),
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Entries taken so far. */
    entries: () => entries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
