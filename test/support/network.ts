import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Addresses of this machine other than loopback (link-local IPv6 ones with their interface). */
export const nonLoopbackAddresses = (): string[] =>
  Object.entries(networkInterfaces()).flatMap(([name, addresses]) =>
    (addresses ?? [])
      .filter((address) => !address.internal)
      .map((address) =>
        address.family === 'IPv6' && address.address.startsWith('fe80:')
          ? `${address.address}%${name}`
          : address.address,
      ),
  );

/** What a TCP connection to `host:port` meets: `connected`, or the error's code (`ECONNREFUSED`). */
export const connectionOutcome = (host: string, port: number): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(5_000, () => {
      socket.destroy();
      resolve('timed out');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

/**
 * Everything a server on loopback `port` writes back to `text`, sent as is on a new connection
 * (bytes fetch would refuse or tidy), until the connection closes. `halfClose` ends the sending
 * side after `text`, so a server that keeps connections open ends this one after its answers.
 */
export const rawExchange = (
  port: number,
  text: string,
  { halfClose = false, encoding = 'utf8' }: { halfClose?: boolean; encoding?: BufferEncoding } = {},
): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding(encoding);
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    if (halfClose) socket.end(text);
    else socket.write(text);
  });

/** A chunked body's bytes: chunks of a hex length and its line, until one of length 0. */
const dechunked = (body: string): string => {
  let decoded = '';
  for (let at = 0; ; ) {
    const end = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, end), 16);
    if (!size) return decoded;
    decoded += body.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
};

export interface RawAnswer {
  readonly status: number;
  /** By lower-case name. */
  readonly headers: Record<string, string>;
  /** Its bytes, a chunked one decoded. */
  readonly body: string;
}

/** The first answer of what `rawExchange` received: its status, headers and body. */
export const firstAnswer = (raw: string): RawAnswer => {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  const body = rest.join('\r\n\r\n');
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: headers['transfer-encoding'] === 'chunked' ? dechunked(body) : body,
  };
};
