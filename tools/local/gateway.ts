import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { BASE_PATH } from '#shared/http/paths';
import { HANDLER_TIMEOUT_SECONDS, type ProxyHandler, type TokenAuthorizerHandler } from '#shared/lambda';
import { allowOverlappingInvocations, inInvocationStore } from '#tools/lambda/invoke-store';
import { CachedDecisions } from '#tools/local/authorization';
import type { FairUse } from '#tools/local/fair-use';
import { gatewayServer } from '#tools/local/node-server';
import type { StaticRoutes } from '#tools/local/static-files';
import { Turns } from '#tools/local/turns';

export interface LocalGatewayOptions {
  /** By operation id. */
  readonly handlers: Readonly<Record<string, ProxyHandler>>;
  readonly authorizer: TokenAuthorizerHandler;
  /** @default 3000 (0 picks a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** One line per request; silent when omitted. */
  readonly log?: (line: string) => void;
  /** API Gateway's own payload limit (10 MB); the functions enforce the API's smaller one. */
  readonly maxPayloadBytes?: number;
  /** The Lambda timeout the handlers see in `getRemainingTimeInMillis`. @default the stack's, 15 s */
  readonly functionTimeoutMs?: number;
  /** Files served outside the stage, without a key; the API does not wait for them. @default {} */
  readonly staticRoutes?: StaticRoutes | Promise<StaticRoutes>;
  /** Requests served at once; the rest wait their turn, callers in rotation. @default LOCAL_CONCURRENCY */
  readonly concurrency?: number;
  /** The stage's `allowedOrigins`, for the gateway's own answers (the functions get their own). @default none */
  readonly corsOrigins?: AllowedOrigins;
  /** Each key's plan, enforced as API Gateway's usage plans do. @default none: no key is limited */
  readonly fairUse?: FairUse;
  /** How long a token's decision is held as API Gateway caches it. @default LOCAL_AUTHORIZER_CACHE_TTL_MS */
  readonly authorizerCacheTtlMs?: number;
  /** How long a client may take to send its headers, and its whole request (answered 408). @default CLIENT_TIMEOUTS */
  readonly timeouts?: ClientTimeouts;
}

export interface ClientTimeouts {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

/** Node's own defaults, kept: a minute for a request's headers, five for the whole request. */
export const CLIENT_TIMEOUTS: ClientTimeouts = { headersTimeoutMs: 60_000, requestTimeoutMs: 300_000 };

/** What every request to one local gateway reads: its options with their defaults, its turns. */
export type GatewaySetup = Required<
  Pick<
    LocalGatewayOptions,
    'handlers' | 'authorizer' | 'maxPayloadBytes' | 'functionTimeoutMs' | 'corsOrigins'
  >
> &
  Pick<LocalGatewayOptions, 'fairUse' | 'log'> & {
    readonly staticRoutes: Promise<StaticRoutes>;
    readonly turns: Turns;
    readonly cachedDecisions: CachedDecisions;
  };

/**
 * Requests served at once: here all share one process and one DynamoDB Local, so a burst waits outside
 * any SDK timer. Eight: 300 creates on a busy machine took as long at 8 as at 32, with far fewer retries.
 */
export const LOCAL_CONCURRENCY = 8;

/**
 * How long a token's first decision is held to every request of it: as long as any stage caches one
 * (`authorizerCacheTtlSeconds`, at most 60 s: the infra tests hold it). Longer would only be stricter.
 */
export const LOCAL_AUTHORIZER_CACHE_TTL_MS = 60_000;

const gatewaySetup = (options: LocalGatewayOptions): GatewaySetup => {
  const concurrency = options.concurrency ?? LOCAL_CONCURRENCY;
  // The functions run side by side here, each invocation in a store of its own for its log keys.
  allowOverlappingInvocations(concurrency);
  return {
    handlers: options.handlers,
    authorizer: inInvocationStore(options.authorizer),
    staticRoutes: Promise.resolve(options.staticRoutes ?? {}),
    maxPayloadBytes: options.maxPayloadBytes ?? 10 * 1024 * 1024,
    functionTimeoutMs: options.functionTimeoutMs ?? HANDLER_TIMEOUT_SECONDS * 1_000,
    corsOrigins: options.corsOrigins ?? [],
    fairUse: options.fairUse,
    turns: new Turns(concurrency),
    cachedDecisions: new CachedDecisions(options.authorizerCacheTtlMs ?? LOCAL_AUTHORIZER_CACHE_TTL_MS),
    log: options.log,
  };
};

export interface LocalGateway {
  readonly baseUrl: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/** Node's 511 leaves a burst's other connections to SYN retries (1 s, then 3 s more); somaxconn caps it (4096). */
const LISTEN_BACKLOG = 4_096;

/** API Gateway's stand-in: routes by the contracts to the real authorizer (TOKEN) and handlers (payload 1.0). */
export const startLocalGateway = async (options: LocalGatewayOptions): Promise<LocalGateway> => {
  const host = options.host ?? '127.0.0.1';
  const server = gatewayServer(gatewaySetup(options), options.timeouts ?? CLIENT_TIMEOUTS);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, LISTEN_BACKLOG, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}${BASE_PATH}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
};
