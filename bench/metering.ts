import { randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';

/** A proxy to DynamoDB Local adding `ReturnConsumedCapacity: INDEXES` (Local checks no signature). */

export interface MeteredCall {
  readonly command: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** DynamoDB's HTTP status: 400 for a refused call (a failed condition), which reports no capacity. */
  readonly status: number;
  readonly consumed?: ConsumedCapacity;
  readonly scanned: number;
}

/** The user agent of the bench's own calls, which the meter leaves out. */
export const SETUP_AGENT = 'bench-setup';

export const startMeter = async (dynamoDbEndpoint: string) => {
  const upstream = new URL(dynamoDbEndpoint);
  const agent = new Agent({ keepAlive: true });
  // By the SDK's invocation id: a retried call is recorded once, as its last attempt was answered.
  let calls = new Map<string, MeteredCall>();
  const server = createServer(async (incoming, answer) => {
    // An attempt given up on is not recorded: its answer may come after its measurement ended.
    let abandoned = false;
    answer.once('close', () => {
      abandoned = !answer.writableFinished;
    });
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk);
    const input: Record<string, unknown> = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = Buffer.from(JSON.stringify({ ...input, ReturnConsumedCapacity: 'INDEXES' }));
    const forwarded = request(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, 'content-length': String(body.length) },
      },
      async (response) => {
        const parts: Buffer[] = [];
        for await (const part of response) parts.push(part);
        const text = Buffer.concat(parts);
        const output: { ConsumedCapacity?: MeteredCall['consumed']; ScannedCount?: number } =
          response.statusCode === 200 ? JSON.parse(text.toString('utf8')) : {};
        answer.writeHead(response.statusCode ?? 502, response.headers).end(text);
        // Nor is the bench's own setting up (a pet put for a removal to find).
        if (
          abandoned ||
          `${incoming.headers['user-agent']} ${incoming.headers['x-amz-user-agent']}`.includes(SETUP_AGENT)
        )
          return;
        calls.set(String(incoming.headers['amz-sdk-invocation-id'] ?? randomUUID()), {
          command: String(incoming.headers['x-amz-target']).split('.').at(-1) ?? 'unknown',
          input,
          status: response.statusCode ?? 0,
          ...(output.ConsumedCapacity ? { consumed: output.ConsumedCapacity } : {}),
          scanned: output.ScannedCount ?? 0,
        });
      },
    );
    forwarded.once('error', (error) => answer.destroy(error));
    forwarded.end(body);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('The meter listens on no TCP port');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    /** Every call since the last `take()`. */
    take: () => {
      const taken = [...calls.values()];
      calls = new Map();
      return taken;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
      agent.destroy();
    },
  };
};

export type Meter = Awaited<ReturnType<typeof startMeter>>;
