import type { ErrorCode } from '#shared/http/error-body';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '#shared/http/gateway-responses';

/**
 * An answer API Gateway gives itself instead of calling a function: thrown by the gateway's
 * steps and turned into the Error object (with the same rows as the stack's gateway responses).
 */
export class GatewayRefusal extends Error {
  override readonly name = 'GatewayRefusal';
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Who answers in API Gateway: a gateway response (fixed headers, whatever the request), or a
   * mock integration (the 405), whose template sets CORS headers for allowed origins only.
   */
  readonly answeredBy: 'gateway-response' | 'mock';

  constructor(
    code: ErrorCode,
    message: string,
    headers: Readonly<Record<string, string>> = {},
    answeredBy: 'gateway-response' | 'mock' = 'gateway-response',
  ) {
    super(message);
    this.code = code;
    this.headers = headers;
    this.answeredBy = answeredBy;
  }

  /** The gateway response of this type, as the stack configures it. */
  static of(type: GatewayResponseType): GatewayRefusal {
    const { code, message } = GATEWAY_RESPONSES[type];
    return new GatewayRefusal(code, message);
  }
}
