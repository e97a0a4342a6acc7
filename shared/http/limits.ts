/** Largest request body accepted: a pet is a few hundred bytes; 16 KiB leaves ample room. */
export const MAX_BODY_BYTES = 16 * 1024;

/** Deepest nesting a JSON body may have: a pet nests two; 2,000 once overflowed the stack (a 500). */
export const MAX_BODY_DEPTH = 32;

/**
 * Most entity tags an `If-Match` or `If-None-Match` may name: a change or removal lists their versions in its
 * one conditional write, and DynamoDB's `IN` takes at most 100 values ("Condition and filter expressions,
 * operators, and functions in DynamoDB": "The list can contain up to 100 values"). A client sends one.
 */
export const MAX_ENTITY_TAGS = 100;
