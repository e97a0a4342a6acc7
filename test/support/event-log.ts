import { existsSync, readFileSync } from 'node:fs';
import * as v from 'valibot';
import { envelopeOf, PET_EVENTS, type PetEventName } from '#shared/events/pet-events';

/**
 * events.ndjson as `npm start` writes it, read and checked against what the writes were: the
 * promises of docs/asyncapi.yaml, each a problem in words when broken.
 */

export interface LoggedEvent {
  readonly line: string;
  readonly detailType: PetEventName;
  readonly eventId: string;
  readonly petId: number;
  readonly version: number;
}

/** Every line of `file` (none yet: none), each held to its event's envelope schema. */
export const readEventLog = (file: string): LoggedEvent[] =>
  (existsSync(file) ? readFileSync(file, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const envelope = JSON.parse(line) as { 'detail-type': PetEventName };
      const name = envelope['detail-type'];
      if (!(name in PET_EVENTS)) throw new Error(`Not a pet event: ${line}`);
      const { detail } = v.parse(envelopeOf(name), envelope);
      return {
        line,
        detailType: name,
        eventId: detail.eventId,
        petId: detail.petId,
        version: detail.version,
      };
    });

/** A write the API acknowledged: the pet and the version it made (a removal's: the last plus one). */
export interface AcknowledgedWrite {
  readonly petId: number;
  readonly version: number;
}

/**
 * What is wrong with `events` for `acknowledged`: an acknowledged write without its event, an event
 * of no write (`applied` may name writes applied but not acknowledged, a crash's), a pet's versions
 * out of order or with a gap, a copy that is not the same line.
 */
export const eventLogProblems = (
  events: readonly LoggedEvent[],
  acknowledged: readonly AcknowledgedWrite[],
  applied: readonly AcknowledgedWrite[] = [],
): string[] => {
  const problems: string[] = [];
  const first = new Map<string, LoggedEvent>();
  const versions = new Map<number, number[]>();
  for (const event of events) {
    const seen = first.get(event.eventId);
    if (seen) {
      if (seen.line !== event.line) problems.push(`${event.eventId} has copies that differ`);
      continue;
    }
    first.set(event.eventId, event);
    versions.set(event.petId, [...(versions.get(event.petId) ?? []), event.version]);
  }
  const idOf = ({ petId, version }: AcknowledgedWrite) => `pet-${petId}-v${version}`;
  for (const write of acknowledged)
    if (!first.has(idOf(write))) problems.push(`no event for the acknowledged write ${idOf(write)}`);
  const known = new Set([...acknowledged, ...applied].map(idOf));
  for (const eventId of first.keys())
    if (!known.has(eventId)) problems.push(`${eventId} is the event of no write`);
  for (const [petId, list] of versions)
    if (list.some((version, index) => version !== index + 1))
      problems.push(`pet ${petId}'s versions come as ${list.join(', ')}`);
  return problems;
};
