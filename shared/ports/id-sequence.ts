/**
 * Hands out pet ids: unique, never reused, safe under concurrent callers. Not in creation order:
 * each instance of a function may hand out ids of its own block (gaps are allowed).
 */
export interface IdSequence {
  next(): Promise<number>;
}
