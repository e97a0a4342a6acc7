import * as v from 'valibot';
import { describe } from '#shared/schema/describe';
import { object, strictObject } from '#shared/schema/objects';

/** The pet schemas (validation, types, OpenAPI); valibot, so bundles keep only those used (BENCHMARKS.md). */

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

export const PetStatus = describe(v.picklist(PET_STATUSES, `must be one of: ${PET_STATUSES.join(', ')}`), {
  id: 'PetStatus',
  description: 'Availability of the animal.',
});
export type PetStatus = v.InferOutput<typeof PetStatus>;

export const DEFAULT_PET_STATUS: PetStatus = 'available';

/** Ids are kept within 1..2^53−1 so they survive JSON in JavaScript clients unchanged. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** An integer from `min` to `max`; within ±2^53−1 the range says so rather than "must be an integer". */
export const integer = (min: number, max: number) =>
  v.pipe(
    v.number('must be an integer'),
    v.integer('must be an integer'),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

const identifier = (description: string) => describe(integer(1, MAX_ID), { format: 'int64', description });

export const PetId = identifier('Unique identifier assigned by the service on creation.');
export type PetId = v.InferOutput<typeof PetId>;

export const NAME_MAX_LENGTH = 200;

/** No control character (U+0000..U+001F, U+007F..U+009F); for the `u` flag, as JSON Schema reads a `pattern`. */
const NO_CONTROL_CHARACTERS = /^\P{Cc}*$/u;

/** No lone surrogate, which JSON can carry as an escape (`"\ud800"`) and strict clients refuse to decode. */
const WELL_FORMED = /^\P{Cs}*$/u;

/** A character that shows: not space, control, format, default-ignorable (U+3164), lone mark, U+2800. */
const VISIBLE_CHARACTER = /[^\p{White_Space}\p{Cc}\p{Cf}\p{Cs}\p{M}\p{Default_Ignorable_Code_Point}\u2800]/u;

/** A name's shape: what a read checks of a stored name. */
const nameShape = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  // Characters are code points, as JSON Schema's `maxLength` counts them: an emoji is one.
  v.maxCodePoints(NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`),
);

/** A name as a client sends it: its shape, and the text rules that only a write checks. */
const name = describe(
  v.pipe(
    nameShape,
    v.regex(
      NO_CONTROL_CHARACTERS,
      'must not contain control characters (U+0000 to U+001F, U+007F to U+009F)',
    ),
    v.regex(WELL_FORMED, 'must be well-formed Unicode text: no lone surrogate (U+D800 to U+DFFF)'),
    v.regex(
      VISIBLE_CHARACTER,
      'must not be blank: it needs a visible character (not a space, control, format or invisible one)',
    ),
  ),
  {
    description:
      "The animal's name: 1 to 200 characters (Unicode code points, well-formed: no lone surrogate), at least one of them visible (not white space, a control, format or default-ignorable character such as U+200B or U+3164), and no control character (U+0000..U+001F, U+007F..U+009F) anywhere.",
    example: 'Rex',
    // The first two rules in explicit ranges, which every validator reads alike, with or without the `u` flag;
    // the visible character, in Unicode's tables only, is the description's.
    patterns: [
      '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
      '^([^\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$',
    ],
  },
);

const categoryId = identifier('Identifier of the category the animal belongs to.');

/**
 * A field of a pet: its schema as a client sends it (validation, type, the document's schema), and
 * optionally what a read checks of a stored value and the value a create that omits it stores.
 */
export interface PetField<S extends v.GenericSchema = v.GenericSchema> {
  readonly schema: S;
  /** What a read checks of the stored value: the write's schema when omitted. */
  readonly stored?: v.GenericSchema;
  /** A create may omit the field, which is then stored with this value (so every Pet has it). */
  readonly onCreate?: { readonly default: v.InferOutput<S>; readonly description: string };
}

/* @__NO_SIDE_EFFECTS__ */
const field = <const S extends v.GenericSchema, const F extends Omit<PetField<S>, 'schema'>>(
  schema: S,
  options: F = {} as F,
): { readonly schema: S } & F => ({ schema, ...options });

/**
 * A pet's fields, declared once, by name: NewPet, PetPatch, Pet and the stored pet derive from it, and
 * so do the create, the idempotent request's fingerprint and the check of a retried write. A field
 * whose schema is `v.optional(…)` is one a pet may lack. Add a new field at the end (docs/development.md,
 * "Add a field").
 */
export const PET_FIELDS = {
  name: field(name, { stored: nameShape }),
  categoryId: field(categoryId),
  status: field(PetStatus, {
    onCreate: {
      default: DEFAULT_PET_STATUS,
      description: `Availability; \`${DEFAULT_PET_STATUS}\` when omitted.`,
    },
  }),
};

type PetFields = typeof PET_FIELDS;
export type PetFieldName = keyof PetFields;

/** The fields' names, in the order they are declared. */
export const PET_FIELD_NAMES = Object.keys(PET_FIELDS) as PetFieldName[];

/* @__NO_SIDE_EFFECTS__ */
const fieldEntries = <E extends v.ObjectEntries>(
  entry: (spec: PetField, key: PetFieldName) => v.GenericSchema,
) =>
  Object.fromEntries(
    PET_FIELD_NAMES.map((key) => [key, entry(PET_FIELDS[key] as PetField, key)]),
  ) as unknown as E;

/** A field a create may omit: optional, described with what it then is. */
/* @__NO_SIDE_EFFECTS__ */
const omittable = <S extends v.GenericSchema>(schema: S, description: string) =>
  describe(v.optional(schema), { description });

type ClientEntries = { readonly [K in PetFieldName]: PetFields[K]['schema'] };
type StoredEntries = {
  readonly [K in PetFieldName]: PetFields[K] extends { stored: infer S extends v.GenericSchema }
    ? S
    : PetFields[K]['schema'];
};
type CreateEntries = {
  readonly [K in PetFieldName]: PetFields[K] extends { onCreate: object }
    ? ReturnType<typeof omittable<PetFields[K]['schema']>>
    : PetFields[K]['schema'];
};

const CLIENT_ENTRIES = fieldEntries<ClientEntries>((spec) => spec.schema);

const FIELD_MESSAGES = { notObject: 'must be a JSON object', unknownKey: 'is not a known field' };

/** What a client sends to add an animal. Unknown fields (including `id`) are rejected, not ignored. */
export const NewPet = describe(
  strictObject(
    fieldEntries<CreateEntries>((spec) =>
      spec.onCreate ? omittable(spec.schema, spec.onCreate.description) : spec.schema,
    ),
    FIELD_MESSAGES,
  ),
  { id: 'NewPet', description: 'An animal to add; the service assigns its id.' },
);
export type NewPet = v.InferOutput<typeof NewPet>;

export const PetPatch = describe(
  v.pipe(
    strictObject(v.partial(v.object(CLIENT_ENTRIES)).entries, FIELD_MESSAGES),
    v.check(
      (patch) => Object.keys(patch).length > 0,
      `changes nothing: it must set at least one of ${PET_FIELD_NAMES.join(', ')}`,
    ),
  ),
  {
    id: 'PetPatch',
    description:
      'A change to an animal (JSON merge patch, RFC 7396): the fields to set, at least one. A field left out keeps its value; `null` (remove) is refused for every field, since every animal has a name, a category and a status; `id` and unknown fields are refused.',
  },
);
export type PetPatch = v.InferOutput<typeof PetPatch>;

export const Pet = describe(object({ id: PetId, ...CLIENT_ENTRIES }), {
  id: 'Pet',
  description: 'An animal of the catalogue.',
});
export type Pet = v.InferOutput<typeof Pet>;

/** A stored pet: without the name's text rules, which the write checked (they cost reads Unicode tables). */
export const StoredPet = object({
  id: PetId,
  ...fieldEntries<StoredEntries>((spec) => spec.stored ?? spec.schema),
});

/** The pet a create stores: the fields sent, and the default of each one left out that has one. */
export const createdPet = (id: PetId, newPet: NewPet): Pet => {
  const pet: Record<string, unknown> = { id };
  for (const key of PET_FIELD_NAMES) {
    const value = newPet[key] ?? (PET_FIELDS[key] as PetField).onCreate?.default;
    if (value !== undefined) pet[key] = value;
  }
  return pet as Pet;
};

/** A stored pet's version: 1 when it is added, one more at every change. Its ETag is made from it. */
export const FIRST_VERSION = 1;

export interface VersionedPet {
  readonly pet: Pet;
  readonly version: number;
}

/** The versions a change or removal may apply to (`If-Match`): any when undefined; none for `[]`. */
export type ExpectedVersions = readonly number[] | undefined;

export const Pets = describe(v.array(Pet), { id: 'Pets', description: 'One page of animals.' });

export const LIST_LIMIT_DEFAULT = 20;
export const LIST_LIMIT_MAX = 100;

/** Where a listing's walk stands: after `afterId` (a Scan), or at `fromId` (an index, whose shard it names). */
export type ListPosition = { readonly afterId: PetId } | { readonly fromId: PetId };

export interface PetPage {
  readonly pets: Pet[];
  /** Absent on the last page: a page never points to an empty one. */
  readonly next?: readonly ListPosition[];
}
