import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics, NO_METRICS } from '#shared/observability/metrics';
import { createObservability } from '#shared/observability/observability';

/**
 * What the metrics middleware writes, through the real Powertools: one ColdStart point on a
 * function's first invocation, then nothing at all for an invocation that recorded nothing.
 */

let written: string[] = [];
const capture = () => {
  written = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
  vi.spyOn(console, 'warn').mockImplementation((...parts: unknown[]) => {
    written.push(parts.map(String).join(' '));
  });
};
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const context = { functionName: 'listPets', awsRequestId: 'r-1' } as unknown as Context;
const emf = () =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the metrics middleware', () => {
  it("records the function's cold start once, by function name and stage", async () => {
    // What Lambda sets for an on-demand environment; Powertools counts no cold start without it.
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    const handler = middy(async () => 'ok').use(createMetrics({ stage: 'staging' }).middleware());
    capture();

    await handler({}, context);
    const first = emf();
    written = [];
    await handler({}, context);

    expect(first).toEqual([
      expect.objectContaining({
        ColdStart: 1,
        function_name: 'listPets',
        service: 'pet-store',
        stage: 'staging',
      }),
    ]);
    // Nothing recorded, nothing written: no empty EMF line, no warning about one.
    expect(written).toEqual([]);
  });

  it('publishes what an invocation recorded when it ends, even when it fails', async () => {
    const metrics = createMetrics();
    const handler = middy(async () => {
      metrics.countPetCreated();
      throw new Error('after the pet was stored');
    }).use(metrics.middleware());
    capture();

    await expect(handler({}, context)).rejects.toThrow('after the pet was stored');

    expect(emf()).toEqual(
      expect.arrayContaining([expect.objectContaining({ PetsCreated: 1, service: 'pet-store' })]),
    );
    expect(emf().every((line) => !('stage' in line))).toBe(true);
  });

  it('are none at all for the local server', async () => {
    const handler = middy(async () => 'ok').use(NO_METRICS.middleware());
    capture();

    NO_METRICS.countPetCreated();
    NO_METRICS.countError('NOT_FOUND');
    await handler({}, context);

    expect(written).toEqual([]);
  });
});

describe('the metrics of a stage', () => {
  it('tags every metric with the stage it is given', () => {
    const { metrics } = createObservability({ metrics: true, stage: 'production' });
    capture();

    metrics.countError('NOT_FOUND');

    expect(JSON.parse(written.join(''))).toMatchObject({ Errors: 1, code: 'NOT_FOUND', stage: 'production' });
  });
});
