import { ERROR_STATUS, type ErrorCode } from '#shared/http/error-body';
import {
  type GatewayErrorAnswer,
  type GatewayResponseType,
  gatewayResponse,
} from '#shared/http/gateway-behaviour';
import { REQUEST_ID_HEADER } from '#shared/http/request-id';
import { RESPONSE_HEADERS } from '#shared/http/responses';
import { retryHeaders } from '#shared/http/retry';

/** An answer API Gateway gives itself instead of calling a function, as the stack configures it. */
export class GatewayRefusal extends Error {
  override readonly name = 'GatewayRefusal';

  constructor(readonly answer: GatewayErrorAnswer) {
    super(answer.error.message);
  }

  get code(): ErrorCode {
    return this.answer.error.code;
  }

  static of(type: GatewayResponseType): GatewayRefusal {
    return new GatewayRefusal(gatewayResponse(type));
  }

  /** An answer of the local server's HTTP layer, before any route (a request line or header it cannot take). */
  static httpLayer(code: ErrorCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    return new GatewayRefusal({
      by: 'mock',
      status: ERROR_STATUS[code],
      error: { code, message },
      headers: { ...RESPONSE_HEADERS, ...retryHeaders(code), ...headers },
      fromContext: { [REQUEST_ID_HEADER]: 'extendedRequestId' },
      cors: {},
    });
  }
}
