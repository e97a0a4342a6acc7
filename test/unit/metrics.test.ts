import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPetMetrics, NO_METRICS } from '#shared/observability/metrics';

/**
 * createPet's one metric, through the real Powertools: a PetsCreated point published at once, as
 * an EMF line CloudWatch reads in Lambda, tagged with the stage when there is one.
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
afterEach(() => vi.restoreAllMocks());

const emf = () =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("createPet's metrics", () => {
  it('publish each pet created at once, in namespace PetStore, by service and stage', () => {
    const metrics = createPetMetrics({ stage: 'staging' });
    capture();

    metrics.countPetCreated();
    metrics.countPetCreated();

    expect(emf()).toEqual([
      expect.objectContaining({ PetsCreated: 1, service: 'pet-store', stage: 'staging' }),
      expect.objectContaining({ PetsCreated: 1, service: 'pet-store', stage: 'staging' }),
    ]);
    expect(emf()[0]).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: 'PetStore', Dimensions: [['service', 'stage']] }] },
    });
  });

  it('carry no stage where there is none', () => {
    const metrics = createPetMetrics();
    capture();

    metrics.countPetCreated();

    expect(emf()).toEqual([expect.objectContaining({ PetsCreated: 1, service: 'pet-store' })]);
    expect(emf()[0]).not.toHaveProperty('stage');
  });

  it('are none at all for the local server', () => {
    capture();

    NO_METRICS.countPetCreated();

    expect(written).toEqual([]);
  });
});
