/** Largest request body accepted: a pet is a few hundred bytes; 16 KiB leaves ample room. */
export const MAX_BODY_BYTES = 16 * 1024;
