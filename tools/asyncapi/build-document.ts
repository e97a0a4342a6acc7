import type { JsonSchema } from '@valibot/to-json-schema';
import { OUTPUT } from '#infra/outputs';
import { FIRST_VERSION, type Pet } from '#shared/domain/pet';
import {
  envelopeOf,
  PET_EVENTS,
  PET_EVENTS_SOURCE,
  type PetEventName,
  petEventOf,
} from '#shared/events/pet-events';
import { SchemaConverter, type SchemaTarget } from '#tools/openapi/json-schema';

/**
 * docs/asyncapi.yaml: the pets' events as AsyncAPI 3 describes a service's messages, from the
 * schemas of shared/events/pet-events.ts, as docs/openapi.yaml describes its requests.
 */

/** The events' contract version: additive changes move the minor version. */
export const EVENTS_VERSION = '1.0.0';

const REX: Pet = { id: 12, name: 'Rex', categoryId: 3, status: 'available' };
const at = new Date('2026-12-07T15:36:12.000Z');

/** Each event's example, made by the code that makes the events. */
const exampleDetail = (name: PetEventName) => {
  const change = {
    PetCreated: { after: { pet: REX, version: FIRST_VERSION }, at },
    PetChanged: {
      before: { pet: REX, version: 2 },
      after: { pet: { ...REX, status: 'sold' }, version: 3 },
      at,
    },
    PetRemoved: { before: { pet: { ...REX, status: 'sold' }, version: 3 }, at },
  } as const;
  const event = petEventOf(change[name]);
  if (event?.detailType !== name) throw new Error(`No example of ${name}`);
  return event.detail;
};

export const exampleEnvelope = (name: PetEventName) => {
  const detail = exampleDetail(name);
  return {
    version: '0',
    id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
    'detail-type': name,
    source: PET_EVENTS_SOURCE,
    account: '111122223333',
    time: detail.occurredAt.replace(/\.\d{3}Z$/, 'Z'),
    region: 'eu-west-1',
    resources: [],
    detail,
  };
};

/** Each event's envelope schema and the components it names, converted for `target`. */
export const eventSchemas = (target: SchemaTarget) => {
  const converter = new SchemaConverter(target);
  const names = Object.keys(PET_EVENTS) as PetEventName[];
  const payloads = Object.fromEntries(
    names.map((name) => [name, converter.convert(envelopeOf(name), 'input')]),
  );
  return {
    payloads: payloads as Record<PetEventName, JsonSchema>,
    components: converter.componentsIn(Object.values(payloads)),
  };
};

const DESCRIPTION = [
  "Each write the API acknowledges to an animal (a creation, a change, a removal) is published as one event on the stage's EventBridge bus, once the write is in the pets table: the table's stream is the outbox, so an event is never published for a write that did not happen, nor missed for one that did. A refused write, a failed condition and an idempotent replay publish nothing.",
  '**At least once.** An event may be delivered more than once: every copy has the same `detail` (its `eventId` included); keep one per `detail.eventId`.',
  "**In order per animal.** `detail.version` counts an animal's writes: 1 for its creation, one more for each change, the last plus one for its removal, with no gap. The service publishes an animal's events in that order, but EventBridge does not promise to deliver them in order: order them by `detail.version`.",
  `**Subscribing.** Make a rule on the bus (the stack's output \`${OUTPUT.eventBus}\`) matching \`source\` \`${PET_EVENTS_SOURCE}\` and the \`detail-type\`s you want; the bus keeps an archive for replays. \`npm start\` writes the same events, each a line of \`<data dir>/events.ndjson\`, and POSTs them to the URLs of PETSTORE_EVENT_TARGETS.`,
].join('\n\n');

export const buildEventsDocument = () => {
  const { payloads, components } = eventSchemas('draft-07');
  const names = Object.keys(PET_EVENTS) as PetEventName[];
  const messages = Object.fromEntries(
    names.map((name) => [
      name,
      {
        name,
        title: name,
        summary: PET_EVENTS[name].summary,
        contentType: 'application/json',
        payload: payloads[name],
        examples: [{ name: 'example', summary: PET_EVENTS[name].summary, payload: exampleEnvelope(name) }],
      },
    ]),
  );
  const refs = (section: string) =>
    Object.fromEntries(names.map((name) => [name, { $ref: `#/components/${section}/${name}` }]));
  return {
    asyncapi: '3.1.0',
    info: { title: 'Pet Store events', version: EVENTS_VERSION, description: DESCRIPTION },
    defaultContentType: 'application/json',
    channels: {
      petEvents: {
        address: null,
        title: "The stage's event bus",
        description: `The stage's EventBridge bus (stack output \`${OUTPUT.eventBus}\`); every event has \`source\` \`${PET_EVENTS_SOURCE}\` and its name as \`detail-type\`.`,
        messages: refs('messages'),
      },
    },
    operations: {
      publishPetEvents: {
        action: 'send',
        title: "An animal's writes, published",
        summary: 'One event for each acknowledged write to an animal, at least once.',
        channel: { $ref: '#/channels/petEvents' },
        messages: names.map((name) => ({ $ref: `#/channels/petEvents/messages/${name}` })),
      },
    },
    components: { messages, schemas: components },
  };
};

/**
 * Each event's schema as the stack registers it in EventBridge's schema registry (OpenAPI 3.0,
 * "Creating an event schema in Amazon EventBridge"): the envelope as `AWSEvent`, with the
 * `x-amazon-events-*` keys EventBridge's own schemas carry, so the registry's code bindings
 * name it as they name any event's.
 */
export const registrySchemas = (): readonly { readonly name: PetEventName; readonly content: string }[] => {
  registered ??= convertForTheRegistry();
  return registered;
};

let registered: ReturnType<typeof convertForTheRegistry> | undefined;

/** Converted once a process: every stack of an app registers the same schemas. */
const convertForTheRegistry = () => {
  const converter = new SchemaConverter('openapi-3.0');
  return (Object.keys(PET_EVENTS) as PetEventName[]).map((name) => {
    const payload = converter.convert(envelopeOf(name), 'input');
    const { [`${name}Event`]: envelope, ...components } = converter.componentsIn([payload]);
    const schemas = {
      AWSEvent: {
        ...envelope,
        'x-amazon-events-detail-type': name,
        'x-amazon-events-source': PET_EVENTS_SOURCE,
      },
      ...components,
    };
    const document = {
      openapi: '3.0.0',
      info: { version: EVENTS_VERSION, title: name },
      paths: {},
      components: { schemas },
    };
    return { name, content: JSON.stringify(document) };
  });
};
