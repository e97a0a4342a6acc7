import * as v from 'valibot';
import { ERROR_CODES, ERROR_LIMITS } from '#shared/http/error-body';
import { describe } from '#shared/schema/describe';
import { object } from '#shared/schema/objects';

/** The Error object's schema, for the document and the type: functions never parse one, so never import it. */

export const ErrorDetail = describe(
  object({
    field: describe(v.pipe(v.string(), v.maxLength(ERROR_LIMITS.fieldLength)), {
      description:
        'Where the problem is, e.g. `body.name` or `query.limit`; a name longer than 64 characters is cut, ending in `…`.',
    }),
    message: v.string(),
  }),
  { id: 'ErrorDetail' },
);
export type ErrorDetail = v.InferOutput<typeof ErrorDetail>;

export const ErrorBody = describe(
  object({
    code: describe(v.picklist(ERROR_CODES), { description: 'Machine-readable error code.' }),
    message: describe(v.string(), { description: 'Human-readable description.' }),
    status: describe(v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)), {
      description: 'The HTTP status code of the response.',
    }),
    details: describe(v.optional(v.pipe(v.array(ErrorDetail), v.maxLength(ERROR_LIMITS.details))), {
      description: 'Per-field problems of a 400: the first 10; the message says how many more there are.',
    }),
    requestId: describe(v.optional(v.string()), { description: 'Identifier of the request, for support.' }),
  }),
  { id: 'Error', description: 'Returned with every failure, as `application/json`.' },
);
export type ErrorBody = v.InferOutput<typeof ErrorBody>;
