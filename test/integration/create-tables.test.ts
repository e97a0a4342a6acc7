import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { ensureTables, pingDynamoDb, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';

/**
 * create-tables.ts against DynamoDB Local: the tables as the stack makes them, and the readiness
 * ping of `npm start`. Each test makes what it checks itself, with no beforeAll: a fault in making
 * tables then fails the test that looks at it, rather than a hook that would only skip the file.
 */
const endpoint = inject('dynamoDbEndpoint');

describe('the tables', () => {
  it('are made as the stack makes them: on demand, their keys, the status index and the TTL', async () => {
    const client = createLocalClient(endpoint);
    try {
      const names = tableNamesFor(`create-tables-${randomUUID().slice(0, 8)}`);
      await ensureTables(client, names);
      const describe = async (name: string) =>
        (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
      const [pets, counters, apiKeys, idempotency] = await Promise.all(
        [names.pets, names.counters, names.apiKeys, names.idempotency].map(describe),
      );
      const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: names.idempotency }));

      expect(pets?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
      expect(pets?.KeySchema).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
      expect(pets?.AttributeDefinitions).toEqual([
        { AttributeName: 'id', AttributeType: 'N' },
        { AttributeName: 'statusShard', AttributeType: 'S' },
      ]);
      expect(
        pets?.GlobalSecondaryIndexes?.map(({ IndexName, KeySchema, Projection }) => ({
          IndexName,
          KeySchema,
          Projection,
        })),
      ).toEqual([
        {
          IndexName: 'status-shard-index',
          KeySchema: [
            { AttributeName: 'statusShard', KeyType: 'HASH' },
            { AttributeName: 'id', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ]);
      expect(counters?.KeySchema).toEqual([{ AttributeName: 'name', KeyType: 'HASH' }]);
      expect(counters?.AttributeDefinitions).toEqual([{ AttributeName: 'name', AttributeType: 'S' }]);
      expect(counters?.GlobalSecondaryIndexes).toBeUndefined();
      expect(apiKeys?.KeySchema).toEqual([{ AttributeName: 'keyHash', KeyType: 'HASH' }]);
      expect(idempotency?.KeySchema).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
      expect(ttl.TimeToLiveDescription).toEqual({ AttributeName: 'expiration', TimeToLiveStatus: 'ENABLED' });
    } finally {
      client.destroy();
    }
  });
});

describe('the readiness ping', () => {
  it('closes its connection once DynamoDB has answered, leaving nothing to keep the process alive', async () => {
    // A plain TCP relay to DynamoDB Local: it sees when the ping's connection is closed.
    const target = new URL(endpoint);
    const opened: Socket[] = [];
    const relay = createServer((socket) => {
      const upstream = connect(Number(target.port), target.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      opened.push(socket);
    });
    relay.listen(0, '127.0.0.1');
    await once(relay, 'listening');
    const { port } = relay.address() as AddressInfo;
    try {
      await pingDynamoDb(`http://127.0.0.1:${port}`, 1_000);
      expect(opened).toHaveLength(1);
      // Waited for, however long a loaded machine takes: a connection left open fails the test by its timeout.
      await Promise.all(opened.map((socket) => (socket.closed ? undefined : once(socket, 'close'))));
      expect(opened.every((socket) => socket.closed)).toBe(true);
    } finally {
      for (const socket of opened) socket.destroy();
      relay.close();
    }
  });
});
