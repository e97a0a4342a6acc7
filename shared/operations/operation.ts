import type * as v from 'valibot';
import type { Scope } from '#shared/auth/scopes';

/** An API operation, described once for the handler, stack, local gateway and OpenAPI document. */

/** The methods of RFC 9110 an API operation may have (HEAD and OPTIONS are answered for it). */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface RequestParts {
  readonly query?: v.GenericSchema;
  readonly path?: v.GenericSchema;
  /** Request headers the operation reads, by lower-case name; other headers are not looked at. */
  readonly headers?: v.GenericSchema;
  readonly body?: v.GenericSchema;
}

export interface HeaderDescriptor {
  readonly description: string;
  /** Whether every response of its kind carries the header. */
  readonly required: boolean;
  readonly schema: v.GenericSchema;
  readonly example?: string;
}

export interface BodyResponseDescriptor {
  readonly description: string;
  readonly body: v.GenericSchema;
  readonly headers?: Readonly<Record<string, HeaderDescriptor>>;
  readonly example: unknown;
}

export interface EmptyResponseDescriptor {
  readonly description: string;
  readonly body?: undefined;
  readonly headers?: Readonly<Record<string, HeaderDescriptor>>;
  readonly example?: undefined;
}

export type ResponseDescriptor = BodyResponseDescriptor | EmptyResponseDescriptor;

/** An error of the operation's own logic (beyond validation and the gateway's answers). */
export interface ErrorDescriptor {
  readonly summary: string;
  /** The error the domain throws, for the document's example: the HTTP layer maps it as it does at run time. */
  readonly example: () => Error;
}

export interface Deprecation {
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
  readonly successor: string;
}

/** Requests made idempotent by a key in a header: the first answer to a key is replayed, per API key. */
export interface IdempotencyRule {
  /** The header carrying the key, in lower case (as validation reads headers). */
  readonly header: string;
  readonly retentionSeconds: number;
}

/** Requests that must fail validation, for the document's examples (each part as the event carries it). */
export interface InvalidRequestExample {
  readonly summary: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly path?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export interface Operation {
  /** OpenAPI operation id; also the name of the function and of its entry file (kebab-case). */
  readonly operationId: string;
  readonly method: HttpMethod;
  readonly path: string;
  /** The scope a key needs to call it, declared only where it is not its method's (`scopeOf`). */
  readonly scope?: Scope;
  readonly summary: string;
  readonly description: string;
  readonly request: RequestParts;
  /** The media types a JSON body may be sent as (any other is 415). @default ['application/json'] */
  readonly bodyMediaTypes?: readonly string[];
  readonly responses: Readonly<Record<number, ResponseDescriptor>>;
  readonly errors?: readonly ErrorDescriptor[];
  /** Sent with every answer of the operation's function: `Deprecation`, `Sunset`, `Link`. */
  readonly deprecation?: Deprecation;
  /** Idempotent requests by key; the function then needs an idempotency store. */
  readonly idempotency?: IdempotencyRule;
  readonly examples: {
    readonly requests?: Readonly<Record<string, { readonly summary: string; readonly value: unknown }>>;
    /**
     * A valid value of each path parameter that names no resource a client makes first (a category's id,
     * say), as the path carries it. A parameter without one names what the POST on its parent path
     * creates (`/pets/{petId}`): the contract suite makes one of its own.
     */
    readonly path?: Readonly<Record<string, string>>;
    readonly invalid: InvalidRequestExample;
  };
}

export const requestHeaderNames = (operation: Pick<Operation, 'request'>): string[] =>
  Object.keys(
    (operation.request.headers as { entries?: Record<string, unknown> } | undefined)?.entries ?? {},
  );

export const bodyMediaTypesOf = (operation: Pick<Operation, 'bodyMediaTypes'>): readonly string[] =>
  operation.bodyMediaTypes ?? ['application/json'];

/** Keeps the literal types of a descriptor, so handlers and tools see its exact shape. */
export const defineOperation = <const O extends Operation>(operation: O): O => operation;

export type RequestInput<O extends Operation> = {
  readonly [K in keyof O['request']]: O['request'][K] extends v.GenericSchema
    ? v.InferOutput<O['request'][K]>
    : never;
};

type RequiredHeaderNames<H> = { [K in keyof H]: H[K] extends { required: true } ? K : never }[keyof H];
type OptionalHeaderNames<H> = Exclude<keyof H, RequiredHeaderNames<H>>;
type HeaderValues<H> = { readonly [K in RequiredHeaderNames<H>]: string } & {
  readonly [K in OptionalHeaderNames<H>]?: string;
};
type HeadersField<R> = R extends { headers: infer H }
  ? [RequiredHeaderNames<H>] extends [never]
    ? { readonly headers?: HeaderValues<H> }
    : { readonly headers: HeaderValues<H> }
  : { readonly headers?: undefined };

/** The body of a response: its schema's type, or none at all for a response without one. */
type BodyField<R> = R extends { body: infer B extends v.GenericSchema }
  ? { readonly body: v.InferOutput<B> }
  : { readonly body?: undefined };

/** What a handler returns: one of the operation's responses, its body and its headers typed. */
export type ResultOf<O extends Operation> = {
  [S in keyof O['responses'] & number]: { readonly status: S } & BodyField<O['responses'][S]> &
    HeadersField<O['responses'][S]>;
}[keyof O['responses'] & number];
