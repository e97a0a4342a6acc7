/** Hands out pet ids: unique, never reused, safe under concurrent callers; not in creation order. */
export interface IdSequence {
  next(): Promise<number>;
}
