import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, errorBody, truncate } from '#shared/http/error-body';
import { validationFailed } from '#shared/http/middleware/validate-request';
import { DOCUMENTED_ERROR_STATUS } from '../support/documented-errors';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Characters of every cost in JSON: one byte, escaped to six, two to four in UTF-8, a lone surrogate. */
const anyCharacter = fc.constantFrom(
  'a',
  ' ',
  '"',
  '\\',
  '\u0001',
  '\u007f',
  'é',
  '€',
  '🐕',
  '\ud800',
  '\u200b',
);
const text = (maxLength: number) => fc.string({ unit: anyCharacter, maxLength });

describe('the Error object', () => {
  it('shows the first 10 of 1,500 problems, and says how many more there are', () => {
    const details = Array.from({ length: 1_500 }, (_, index) => ({
      field: `body.extra${index}`,
      message: 'is not a known field',
    }));

    const error = validationFailed(details);
    const body = errorBody(error.code, error.message, { details: [...(error.details ?? [])] });

    expect(body.details).toHaveLength(10);
    expect(body.details?.[9]).toEqual({ field: 'body.extra9', message: 'is not a known field' });
    expect(body.message).toMatch(
      /^Invalid request: body\.extra0 is not a known field; .*; and 1490 more problems$/,
    );
    expect(bytes(body)).toBeLessThanOrEqual(4_096);
  });

  it('cuts an echoed field name to 64 characters, ending in an ellipsis', () => {
    const error = validationFailed([
      { field: `query.${'q'.repeat(10_000)}`, message: 'is not a known parameter' },
    ]);

    const [detail] = error.details ?? [];

    expect(detail?.field).toBe(`query.${'q'.repeat(57)}…`);
    expect([...(detail?.field ?? '')]).toHaveLength(64);
    expect(error.message.length).toBeLessThan(200);
  });

  it('never splits a character made of two UTF-16 units when it cuts a name', () => {
    const [detail] = validationFailed([{ field: `body.${'🐕'.repeat(100)}`, message: 'x' }]).details ?? [];

    expect(detail?.field).toBe(`body.${'🐕'.repeat(58)}…`);
  });

  it('stays within 4 KiB whatever it is given, even names JSON escapes six bytes a character', () => {
    fc.assert(
      fc.property(
        text(2_000),
        fc.array(fc.record({ field: text(300), message: text(300) }), { maxLength: 20 }),
        fc.string({ maxLength: 300 }),
        (message, details, requestId) => {
          const body = errorBody('VALIDATION_FAILED', message, { details, requestId });

          expect(bytes(body)).toBeLessThanOrEqual(4_096);
          expect(body.details?.length ?? 0).toBeLessThanOrEqual(10);
          for (const detail of body.details ?? []) expect([...detail.field].length).toBeLessThanOrEqual(64);
        },
      ),
      { numRuns: 100 },
    );
    const escaped = errorBody('VALIDATION_FAILED', '\u0001'.repeat(1_000), {
      details: Array.from({ length: 10 }, () => ({
        field: '\u0001'.repeat(64),
        message: '\u0001'.repeat(200),
      })),
    });
    expect(bytes(escaped)).toBeLessThanOrEqual(4_096);
  });
});

describe('error codes', () => {
  it('each travel with their documented status', () => {
    expect(ERROR_STATUS).toEqual(DOCUMENTED_ERROR_STATUS);
  });
});

describe('the Error object at its limits', () => {
  it('keeps a name of exactly 64 characters whole, and cuts one of 65', () => {
    expect(truncate('f'.repeat(64), 64)).toBe('f'.repeat(64));
    expect(truncate('f'.repeat(65), 64)).toBe(`${'f'.repeat(63)}…`);
  });

  it('keeps a body of exactly 4 KiB whole', () => {
    // 51 bytes around the message; a control character is six bytes once JSON escapes it.
    const message = `${'\u0001'.repeat(674)}x`;

    const body = errorBody('INTERNAL_ERROR', message);

    expect(bytes(body)).toBe(4_096);
    expect(body.message).toBe(message);
  });

  it('halves the message of a body over 4 KiB before it drops the last detail', () => {
    const body = errorBody('VALIDATION_FAILED', '\u0001'.repeat(1_000), {
      details: [{ field: 'body.name', message: 'is required' }],
    });

    expect(body.details).toEqual([{ field: 'body.name', message: 'is required' }]);
    expect(Array.from(body.message)).toHaveLength(500);
    expect(bytes(body)).toBeLessThanOrEqual(4_096);
  });

  it('cuts a request id to 128 characters', () => {
    expect(errorBody('NOT_FOUND', 'x', { requestId: 'r'.repeat(200) }).requestId).toBe(`${'r'.repeat(127)}…`);
  });
});
