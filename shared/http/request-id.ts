/**
 * `Request-Id`: API Gateway's id of the request (`$context.requestId`), on every answer, whoever
 * gives it (a function, a gateway response, a mock, the local gateway), success or error. An
 * Error body's `requestId` is the same value, and so is the `requestId` of every log line the
 * request makes a function write: a client quoting it lets an operator find the request.
 */
export const REQUEST_ID_HEADER = 'Request-Id';
