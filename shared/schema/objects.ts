import * as v from 'valibot';

/** Object schemas whose missing entry says what its schema says, and every unknown key is a problem. */

const missingEntryMessage = (entries: v.ObjectEntries, issue: v.BaseIssue<unknown>): string => {
  const key = issue.path?.[0]?.key;
  const entry = typeof key === 'string' && Object.hasOwn(entries, key) ? entries[key] : undefined;
  return (entry && v.safeParse(entry, undefined).issues?.[0]?.message) || issue.message;
};

/** An object schema (unknown keys left out of its output); `notObject` is what a non-object is told. */
/* @__NO_SIDE_EFFECTS__ */
export const object = <const E extends v.ObjectEntries>(entries: E, notObject?: string) =>
  v.object(entries, (issue) =>
    issue.path ? missingEntryMessage(entries, issue) : (notObject ?? issue.message),
  );

export interface StrictObjectMessages {
  readonly notObject: string;
  readonly unknownKey: string;
}

/** The key a strict object issue is about, at the object's own level. */
const keyIssue = (issue: v.BaseIssue<unknown>): v.ObjectPathItem | undefined => {
  const [item, ...deeper] = issue.path ?? [];
  return item?.type === 'object' && item.origin === 'key' && deeper.length === 0 ? item : undefined;
};

/** A strict object schema: every unknown key is a problem of its own (valibot's stops at the first). */
/* @__NO_SIDE_EFFECTS__ */
export const strictObject = <const E extends v.ObjectEntries>(entries: E, messages: StrictObjectMessages) =>
  v.pipe(
    v.strictObject(entries, (issue) => {
      const key = keyIssue(issue)?.key;
      if (key === undefined) return messages.notObject;
      return Object.hasOwn(entries, key) ? missingEntryMessage(entries, issue) : messages.unknownKey;
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      const first = dataset.issues
        ?.map(keyIssue)
        .find((item) => item !== undefined && !Object.hasOwn(entries, item.key));
      if (!first) return;
      // valibot reported the first unknown key; the keys before it are all known.
      for (const key in first.input) {
        if (key === first.key || Object.hasOwn(entries, key)) continue;
        addIssue({
          message: messages.unknownKey,
          input: key,
          expected: 'never',
          path: [{ type: 'object', origin: 'key', input: first.input, key, value: first.input[key] }],
        });
      }
    }),
  );
