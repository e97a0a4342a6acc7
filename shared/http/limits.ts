/** Largest request body accepted: a pet is a few hundred bytes; 16 KiB leaves ample room. */
export const MAX_BODY_BYTES = 16 * 1024;

/** Deepest nesting a JSON body may have: a pet nests two; 2,000 once overflowed the stack (a 500). */
export const MAX_BODY_DEPTH = 32;
