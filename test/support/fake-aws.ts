import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An endpoint that answers every AWS call with one of AWS's errors, in the wire shape of the
 * calling service's protocol, for the SDK's own parser to read: `AWS_ENDPOINT_URL` points every
 * client of a command at it ("service-specific endpoints"), so the command meets what AWS says
 * when credentials have expired or a stack or table is not in the region, without a network.
 */

/** What one call asks for: its protocol, and the operation it names. */
export interface FakeAwsCall {
  /** `json`: DynamoDB (awsJson1_0); `query`: CloudFormation (awsQuery); `rest`: API Gateway (restJson1). */
  readonly protocol: 'json' | 'query' | 'rest';
  /** `Scan`, `DescribeStacks`, `GET /account`. */
  readonly operation: string;
}

/** AWS's error: its name (`ExpiredToken`, `ValidationError`…), its HTTP status and its message. */
export interface FakeAwsError {
  readonly code: string;
  readonly status: number;
  readonly message: string;
}

export interface FakeAws {
  readonly endpoint: string;
  readonly calls: FakeAwsCall[];
  close(): Promise<void>;
}

const body = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on('end', () => resolve(text));
  });

const callOf = async (request: IncomingMessage): Promise<FakeAwsCall> => {
  const target = request.headers['x-amz-target'];
  const text = await body(request);
  if (typeof target === 'string') return { protocol: 'json', operation: target.split('.').pop() ?? '' };
  if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded'))
    return { protocol: 'query', operation: new URLSearchParams(text).get('Action') ?? '' };
  return { protocol: 'rest', operation: `${request.method} ${request.url?.split('?')[0]}` };
};

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export const startFakeAws = (answer: (call: FakeAwsCall) => FakeAwsError): Promise<FakeAws> => {
  const calls: FakeAwsCall[] = [];
  const server: Server = createServer(async (request, response) => {
    const call = await callOf(request);
    calls.push(call);
    const { code, status, message } = answer(call);
    if (call.protocol === 'json') {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${code}`, message }));
    } else if (call.protocol === 'query') {
      response.writeHead(status, { 'content-type': 'text/xml' });
      response.end(
        `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>fake</RequestId></ErrorResponse>`,
      );
    } else {
      response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': code });
      response.end(JSON.stringify({ message }));
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        endpoint: `http://127.0.0.1:${port}`,
        calls,
        close: () => new Promise((closed) => server.close(() => closed())),
      });
    });
  });
};

/** A loopback port nothing listens on: a connection to it is refused at once. */
export const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** AWS's answer to calls made with expired temporary credentials, as each service names it. */
export const EXPIRED = (call: FakeAwsCall): FakeAwsError => ({
  code: call.protocol === 'query' ? 'ExpiredToken' : 'ExpiredTokenException',
  status: call.protocol === 'rest' ? 403 : 400,
  message: 'The security token included in the request is expired',
});
