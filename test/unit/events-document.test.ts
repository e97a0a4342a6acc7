import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PET_EVENTS, PET_EVENTS_SOURCE } from '#shared/events/pet-events';
import { buildEventsDocument } from '#tools/asyncapi/build-document';
import { eventsYaml, readCommittedEventsYaml } from '#tools/asyncapi/document-file';

/**
 * docs/asyncapi.yaml is generated from the events' schemas (`npm run openapi`) and held to them
 * here; `npm run check` validates it with AsyncAPI's own parser.
 */

describe('the events document', () => {
  it('is what the code generates (run npm run openapi after changing an event)', () => {
    expect(readCommittedEventsYaml()).toBe(eventsYaml(buildEventsDocument()));
  });

  it('describes every event, each as EventBridge delivers it, with its source and detail-type', () => {
    const document = parse(readCommittedEventsYaml());
    const names = Object.keys(PET_EVENTS);

    expect(Object.keys(document.components.messages)).toEqual(names);
    for (const name of names) {
      const schema = document.components.schemas[`${name}Event`];
      expect(schema.required).toEqual([
        'version',
        'id',
        'detail-type',
        'source',
        'account',
        'time',
        'region',
        'resources',
        'detail',
      ]);
      expect(schema.properties['detail-type'].const).toBe(name);
      expect(schema.properties.source.const).toBe(PET_EVENTS_SOURCE);
      expect(schema.properties.detail).toEqual({ $ref: `#/components/schemas/${name}` });
    }
  });
});
