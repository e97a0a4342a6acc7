import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import type { petEventsPublisher } from '#functions/publish-pet-events';
import type { StreamHandler } from '#shared/lambda';
import { lambdaContext } from '#tools/lambda/context';
import { TIMED_OUT, withinTimeout } from '#tools/lambda/timeout';
import { writeFileAtomically } from '#tools/local/files';

/**
 * A function's event source mapping on a DynamoDB stream, as Lambda runs one ("Process DynamoDB
 * records with Lambda"; "Lambda parameters for Amazon DynamoDB event source mappings"), over
 * DynamoDB Local's own stream: each shard polled 4 times a second, at once again after a batch;
 * a batch of at most `batchSize` records in the shard's order; its batch item failures retried
 * from the lowest one, a failing batch split in two, `retryAttempts` retries or `maxRecordAgeSeconds`
 * at most, then its place in the stream written to the on-failure file as Lambda sends it to a
 * queue. How far each shard is done is kept in a file: a restart resumes after it.
 */

/** An event source mapping's settings, as the publisher's module gives them (`petEventsPublisher.mapping`). */
export type MappingSettings = {
  readonly [K in keyof typeof petEventsPublisher.mapping]: K extends 'startingPosition'
    ? 'TRIM_HORIZON' | 'LATEST'
    : (typeof petEventsPublisher.mapping)[K] extends boolean
      ? boolean
      : number;
};

/** "Lambda polls shards in your DynamoDB stream for records at a base rate of 4 times per second." */
export const POLL_INTERVAL_MS = 250;
/** The wait before a failing batch is retried, doubled at each retry, 30 s at most. */
export const RETRY_BACKOFF_MS = 500;
/** How often the stream's shards are listed again, to find the new ones (DynamoDB rotates them). */
const DESCRIBE_EVERY_MS = 10_000;

export interface StreamPollerOptions {
  readonly client: DynamoDBStreamsClient;
  readonly streamArn: string;
  /** As the on-failure record and the function's context name it. */
  readonly functionName: string;
  /** Run in an invocation store of its own where the process has the multi-invocation one (npm start). */
  readonly handler: StreamHandler;
  readonly mapping: MappingSettings;
  /** How far each shard is done. */
  readonly positionFile: string;
  /** The on-failure destination. */
  readonly failuresFile: string;
  /** The function's Lambda timeout. */
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
}

interface ShardPosition {
  /** The last record done (published, or given up on). */
  readonly after?: string;
  /** Closed, and read to its end. */
  readonly done?: boolean;
}

interface Position {
  readonly streamArn: string;
  readonly shards: Record<string, ShardPosition>;
}

type Outcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly failedFrom?: number; readonly error?: string };

/** A record as Lambda passes it to a function: with its stream's ARN, its time in epoch seconds. */
export const lambdaRecordOf = (record: _Record, streamArn: string): DynamoDBRecord => {
  const { ApproximateCreationDateTime, ...stream } = record.dynamodb ?? {};
  return {
    ...(record as DynamoDBRecord),
    dynamodb: {
      ...(stream as DynamoDBRecord['dynamodb']),
      ...(ApproximateCreationDateTime
        ? { ApproximateCreationDateTime: Math.floor(ApproximateCreationDateTime.getTime() / 1_000) }
        : {}),
    },
    eventSourceARN: streamArn,
  };
};

const sequenceOf = (record: _Record | undefined): string => record?.dynamodb?.SequenceNumber ?? '';
const createdAt = (record: _Record | undefined): Date =>
  record?.dynamodb?.ApproximateCreationDateTime ?? new Date();

const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

export class StreamPoller {
  private position: Position;
  private shards: Shard[] = [];
  private describedAt = 0;
  private readonly iterators = new Map<string, string>();
  private stopped = false;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(private readonly options: StreamPollerOptions) {
    this.position = this.readPosition();
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops after the batch in hand, whose position is then kept. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.running;
  }

  private readPosition(): Position {
    const { streamArn, positionFile } = this.options;
    try {
      const kept = JSON.parse(readFileSync(positionFile, 'utf8')) as Position;
      // Another stream (the table made again) starts from its oldest record.
      if (kept.streamArn === streamArn && typeof kept.shards === 'object') return kept;
    } catch {
      // None yet.
    }
    return { streamArn, shards: {} };
  }

  private keep(shardId: string, shard: ShardPosition): void {
    this.position = { ...this.position, shards: { ...this.position.shards, [shardId]: shard } };
    writeFileAtomically(this.options.positionFile, `${JSON.stringify(this.position, null, 2)}\n`);
  }

  /** A wait that stop() ends, and none once stopped. */
  private wait(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        const busy = await this.poll();
        if (failures > 0) this.options.log("Events: the pets table's stream is read again");
        failures = 0;
        if (!busy) await this.wait(POLL_INTERVAL_MS);
      } catch (error) {
        failures += 1;
        if (failures === 1)
          this.options.log(
            `Events: reading the pets table's stream failed (${describeError(error)}); trying again`,
          );
        // After DynamoDB Local's restart its iterators are void: fresh ones from the kept position.
        this.iterators.clear();
        this.describedAt = 0;
        await this.wait(Math.min(5_000, POLL_INTERVAL_MS * 2 ** failures));
      }
    }
  }

  /** One GetRecords per shard that may be read now; true when one of them had records. */
  private async poll(): Promise<boolean> {
    if (Date.now() - this.describedAt >= DESCRIBE_EVERY_MS) await this.describe();
    let busy = false;
    for (const shard of this.readable()) {
      if (this.stopped) break;
      const id = shard.ShardId ?? '';
      const { Records = [], NextShardIterator } = await this.read(id);
      if (Records.length > 0) {
        busy = true;
        await this.process(id, Records);
        if (this.stopped) break;
      }
      if (NextShardIterator) this.iterators.set(id, NextShardIterator);
      else {
        // A closed shard read to its end: its children come next.
        this.iterators.delete(id);
        this.keep(id, { ...this.position.shards[id], done: true });
      }
    }
    return busy;
  }

  private async describe(): Promise<void> {
    const shards: Shard[] = [];
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.options.client.send(
        new DescribeStreamCommand({ StreamArn: this.options.streamArn, ExclusiveStartShardId }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
    this.shards = shards;
    this.describedAt = Date.now();
  }

  /** Shards not read to their end whose parent is (or is gone): a key's records stay in order. */
  private readable(): Shard[] {
    const known = new Set(this.shards.map((shard) => shard.ShardId));
    const done = (id: string | undefined) => id !== undefined && this.position.shards[id]?.done === true;
    return this.shards.filter(
      (shard) =>
        !done(shard.ShardId) &&
        (shard.ParentShardId === undefined || !known.has(shard.ParentShardId) || done(shard.ParentShardId)),
    );
  }

  /**
   * One GetRecords. DynamoDB Local refuses an iterator taken on a shard while it was empty once a
   * record of it arrives (TrimmedDataAccessException, when other tables' writes moved its sequence
   * numbers on): a new iterator from the kept position reads it.
   */
  private async read(shardId: string) {
    const getRecords = async (iterator: string) =>
      this.options.client.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: this.options.mapping.batchSize }),
      );
    try {
      return await getRecords(this.iterators.get(shardId) ?? (await this.iteratorOf(shardId)));
    } catch (error) {
      if (!(error instanceof TrimmedDataAccessException)) throw error;
      return getRecords(await this.iteratorOf(shardId));
    }
  }

  private async iteratorOf(shardId: string): Promise<string> {
    const after = this.position.shards[shardId]?.after;
    const request = { StreamArn: this.options.streamArn, ShardId: shardId };
    try {
      const { ShardIterator } = await this.options.client.send(
        new GetShardIteratorCommand(
          after
            ? { ...request, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
            : { ...request, ShardIteratorType: this.options.mapping.startingPosition },
        ),
      );
      if (!ShardIterator) throw new Error(`No iterator for shard ${shardId}`);
      return ShardIterator;
    } catch (error) {
      if (!(after && error instanceof TrimmedDataAccessException)) throw error;
      // Kept past the stream's retention (24 hours): what is left is read from its oldest record.
      this.options.log(
        `Events: shard ${shardId} no longer holds record ${after}; reading from its oldest record`,
      );
      this.keep(shardId, {});
      return this.iteratorOf(shardId);
    }
  }

  /**
   * One batch through the function, retried, bisected or given up on as the mapping says. A batch
   * split off another (a half, or what follows a partial success) counts its retries afresh: AWS
   * does not say whether a half keeps its parent's count, and a fresh one isolates a failing
   * record from the rest, which is what bisecting is for.
   */
  private async process(shardId: string, records: readonly _Record[]): Promise<void> {
    const { retryAttempts, maxRecordAgeSeconds, bisectBatchOnError } = this.options.mapping;
    const batches: { records: readonly _Record[]; invocations: number }[] = [{ records, invocations: 0 }];
    while (batches.length > 0 && !this.stopped) {
      const batch = batches[0] as (typeof batches)[number];
      const outcome = await this.invoke(batch.records);
      batch.invocations += 1;
      if (outcome.ok) {
        this.keep(shardId, { after: sequenceOf(batch.records.at(-1)) });
        batches.shift();
        continue;
      }
      if (outcome.failedFrom !== undefined && outcome.failedFrom > 0) {
        // Checkpointed before the lowest failure; the batch is split there, and the rest retried.
        this.keep(shardId, { after: sequenceOf(batch.records[outcome.failedFrom - 1]) });
        batches[0] = { records: batch.records.slice(outcome.failedFrom), invocations: 0 };
        continue;
      }
      if (outcome.failedFrom === undefined && bisectBatchOnError && batch.records.length > 1) {
        const half = Math.ceil(batch.records.length / 2);
        batches.splice(
          0,
          1,
          { records: batch.records.slice(0, half), invocations: 0 },
          { records: batch.records.slice(half), invocations: 0 },
        );
        continue;
      }
      const tooOld = Date.now() - createdAt(batch.records[0]).getTime() > maxRecordAgeSeconds * 1_000;
      if (batch.invocations > retryAttempts || tooOld) {
        this.giveUp(
          shardId,
          batch.records,
          batch.invocations,
          tooOld ? 'RecordAgeExceeded' : 'RetryAttemptsExhausted',
          outcome,
        );
        this.keep(shardId, { after: sequenceOf(batch.records.at(-1)) });
        batches.shift();
        continue;
      }
      await this.wait(Math.min(30_000, RETRY_BACKOFF_MS * 2 ** (batch.invocations - 1)));
    }
  }

  /** The function's answer: every record done, done up to the lowest batch item failure, or a function error. */
  private async invoke(batch: readonly _Record[]): Promise<Outcome> {
    const { handler, functionName, timeoutMs, streamArn, log } = this.options;
    const event = { Records: batch.map((record) => lambdaRecordOf(record, streamArn)) };
    let result: Awaited<ReturnType<StreamHandler>> | typeof TIMED_OUT;
    try {
      result = await withinTimeout(handler(event, lambdaContext(functionName, { timeoutMs })), timeoutMs);
    } catch (error) {
      log(`Events: ${functionName} failed: ${describeError(error)}`);
      return { ok: false, error: describeError(error) };
    }
    if (result === TIMED_OUT) {
      log(`Events: ${functionName}: Task timed out after ${(timeoutMs / 1_000).toFixed(2)} seconds`);
      return { ok: false, error: 'Task timed out' };
    }
    const failures = result?.batchItemFailures ?? [];
    if (failures.length === 0) return { ok: true };
    // "Configuring partial batch response with DynamoDB and Lambda": the lowest sequence number is
    // the checkpoint; an empty or unknown itemIdentifier fails the whole batch.
    const indexes = failures.map(({ itemIdentifier }) =>
      batch.findIndex((record) => itemIdentifier !== '' && sequenceOf(record) === itemIdentifier),
    );
    return indexes.includes(-1)
      ? { ok: false, error: 'an invalid batch item failure' }
      : { ok: false, failedFrom: Math.min(...indexes) };
  }

  /** What Lambda sends to an on-failure destination: the batch's place in the stream, not its records. */
  private giveUp(
    shardId: string,
    batch: readonly _Record[],
    invocations: number,
    condition: 'RetryAttemptsExhausted' | 'RecordAgeExceeded',
    outcome: Outcome,
  ): void {
    const { functionName, streamArn, failuresFile, log } = this.options;
    const second = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const record = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: lambdaContext(functionName).invokedFunctionArn,
        condition,
        approximateInvokeCount: invocations,
      },
      responseContext: {
        statusCode: 200,
        executedVersion: '$LATEST',
        ...(!outcome.ok && outcome.error ? { functionError: 'Unhandled' } : {}),
      },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: sequenceOf(batch[0]),
        endSequenceNumber: sequenceOf(batch.at(-1)),
        approximateArrivalOfFirstRecord: second(createdAt(batch[0])),
        approximateArrivalOfLastRecord: second(createdAt(batch.at(-1))),
        batchSize: batch.length,
        streamArn,
      },
    };
    appendFileSync(failuresFile, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    log(
      `Events: gave up on ${batch.length} record(s) of shard ${shardId} after ${invocations} invocations (${condition}): their place in the stream is in ${failuresFile}`,
    );
  }
}
