import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { GATEWAY_RESPONSES, type GatewayResponseType, methodNotAllowed } from '#infra/gateway-responses';
import { allowedMethods, type Route } from '#infra/routes';
import { PetNotFoundError, StoreUnavailableError } from '#shared/domain/errors';
import { DEFAULT_PET_STATUS, NewPet, Pet, Pets } from '#shared/domain/pet';
import { type ErrorBody, errorBody } from '#shared/http/error-body';
import { toHttpError } from '#shared/http/error-mapper';
import type { HttpError } from '#shared/http/http-error';
import { jsonBody, MAX_BODY_BYTES } from '#shared/http/middleware/json-body';
import { validateRequest } from '#shared/http/middleware/validate-request';
import type { RequestSchema } from '#shared/http/request-schemas';

/**
 * The document's examples. Success bodies are checked by the domain schemas as they are built;
 * error bodies are what the service's own code produces for a bad request (the real middleware run
 * on a made-up event, the real error mapper, the gateway's table), so no message is copied here.
 */

/** The `requestId` shown in error examples; every real error carries one. */
export const EXAMPLE_REQUEST_ID = '6f1c1a52-9d3b-4f57-a0c6-2b5e0d7c1e84';

export const newPetExamples = {
  minimal: NewPet.parse({ name: 'Rex', categoryId: 3 }),
  withStatus: NewPet.parse({ name: 'Tom', categoryId: 7, status: 'pending' }),
};

export const petExample = Pet.parse({ id: 1, name: 'Rex', categoryId: 3, status: DEFAULT_PET_STATUS });

export const petsExample = Pets.parse([
  petExample,
  { id: 2, name: 'Tom', categoryId: 7, status: 'pending' },
  { id: 5, name: 'Kitty', categoryId: 7, status: 'sold' },
]);

export const errorExample = (error: HttpError): ErrorBody =>
  errorBody(error.code, error.message, {
    ...(error.details ? { details: [...error.details] } : {}),
    requestId: EXAMPLE_REQUEST_ID,
  });

export const gatewayErrorExample = (type: GatewayResponseType): ErrorBody =>
  errorBody(GATEWAY_RESPONSES[type].code, GATEWAY_RESPONSES[type].message, { requestId: EXAMPLE_REQUEST_ID });

export const methodNotAllowedExample = (path: Route['path']): { body: ErrorBody; allow: string } => {
  const { code, message, allow } = methodNotAllowed(allowedMethods(path));
  return { body: errorBody(code, message, { requestId: EXAMPLE_REQUEST_ID }), allow };
};

type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent>;

/** Runs the `before` hooks of real middleware on an event and returns the error they end with. */
const rejectionOf = async (middlewares: readonly Middleware[], event: Partial<APIGatewayProxyEvent>) => {
  const request = { event, context: {}, response: undefined, error: undefined, internal: {} };
  try {
    for (const middleware of middlewares) {
      await middleware.before?.(request as unknown as middy.Request<APIGatewayProxyEvent>);
    }
  } catch (error) {
    return toHttpError(error);
  }
  throw new Error(`Expected the request ${JSON.stringify(event).slice(0, 80)} to be refused`);
};

/** A refused request of each kind, as the operation's middleware refuses it. */
export const validationFailure = (request: RequestSchema, event: Partial<APIGatewayProxyEvent>) =>
  rejectionOf([validateRequest(request)], event);

const jsonRequest = (body: string, contentType = 'application/json') => ({
  body,
  headers: { 'content-type': contentType },
});

export const bodyFailures = async () => ({
  invalidJson: await rejectionOf(jsonBody(), jsonRequest('{"name": "Rex",')),
  missingBody: await rejectionOf(jsonBody(), { body: null, headers: { 'content-type': 'application/json' } }),
  tooLarge: await rejectionOf(jsonBody(), jsonRequest(' '.repeat(MAX_BODY_BYTES + 1))),
  unsupportedMediaType: await rejectionOf(jsonBody(), jsonRequest('name=Rex', 'text/plain')),
});

export const notFound = (petId: number) => toHttpError(new PetNotFoundError(petId));
export const internalError = () => toHttpError(new Error('an unexpected failure'));
export const storeUnavailable = () => toHttpError(new StoreUnavailableError('throttled'));
