import { EventEmitter, once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (DynamoDB Local) that can fail the way a network or a frozen
 * process does, for the tests of what the service does then:
 *
 * - `pass`: bytes flow both ways;
 * - `stall`: connections are accepted and kept, bytes sent either way are held back, as with a
 *   SIGSTOPped DynamoDB or a dead route; `resume()` delivers them and passes again;
 * - `drop`: every connection, open or new, is reset at once.
 *
 * And, while passing, it can fail the answers of chosen DynamoDB requests only (`failAnswers`):
 * the request is delivered, so DynamoDB applies it, and its answer is then delayed, held back or
 * lost (the connection reset), as happens to a write whose answer is late or lost on the way.
 * It reads each request's `X-Amz-Target` header and `TableName` to know which it is.
 *
 * It emits `held` each time it holds a chunk back, and `answer` (with the fate it gave) each time
 * it fails an answer, so a test can wait for either instead of sleeping.
 */
export type ProxyMode = 'pass' | 'stall' | 'drop';

/** What happens to the answer of a matching request, once DynamoDB has sent it. */
export type AnswerFate =
  /** Delivered this much later (the client may have given up meanwhile). */
  | { readonly delayMs: number }
  /** Never delivered: the client's connection is reset. */
  | 'drop'
  /** Not delivered until `resume()` or `clearAnswerFaults()`. */
  | 'hold';

export interface AnswerFault {
  /** The DynamoDB operation (`PutItem`, `UpdateItem`, `GetItem`, …), as `X-Amz-Target` names it. */
  readonly operation: string;
  /** Only requests on this table; any table when omitted. */
  readonly table?: string;
  readonly fate: AnswerFate;
  /** Only this many matching requests, the first ones; every one when omitted. */
  readonly times?: number;
}

/** What a request was: its operation, its table, and the access key id it was signed with. */
interface RequestSeen {
  readonly operation: string;
  readonly table: string | undefined;
  /** From `Authorization`'s `Credential=<access key id>/…`, as SigV4 writes it. */
  readonly accessKeyId: string | undefined;
}

/** One request as it went through: what it was, and whether a fault took its answer. */
export interface SeenRequest extends RequestSeen {
  readonly faulted: boolean;
}

interface Held {
  readonly to: Socket;
  readonly chunk: Buffer;
}

/** Parses the requests a client sends on one connection, one after the other (no pipelining). */
class RequestReader {
  private buffer = Buffer.alloc(0);
  private bodyLength: number | undefined;
  private headers = '';

  /** The requests completed by `chunk`: what each was. */
  read(chunk: Buffer): RequestSeen[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const done: RequestSeen[] = [];
    for (;;) {
      if (this.bodyLength === undefined) {
        const end = this.buffer.indexOf('\r\n\r\n');
        if (end < 0) return done;
        this.headers = this.buffer.subarray(0, end).toString('latin1');
        this.buffer = this.buffer.subarray(end + 4);
        this.bodyLength = Number(/^content-length:\s*(\d+)/im.exec(this.headers)?.[1] ?? 0);
      }
      if (this.buffer.length < this.bodyLength) return done;
      const body = this.buffer.subarray(0, this.bodyLength).toString('utf8');
      this.buffer = this.buffer.subarray(this.bodyLength);
      this.bodyLength = undefined;
      const target = /^x-amz-target:\s*\S+?\.(\w+)/im.exec(this.headers)?.[1] ?? '';
      let table: string | undefined;
      try {
        const parsed: unknown = JSON.parse(body);
        const name = (parsed as { TableName?: unknown } | null)?.TableName;
        table = typeof name === 'string' ? name : undefined;
      } catch {
        table = undefined;
      }
      const accessKeyId = /^authorization:.*\bCredential=([^/,\s]+)\//im.exec(this.headers)?.[1];
      done.push({ operation: target, table, accessKeyId });
    }
  }
}

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
  readonly held: Held[];
  readonly requests: RequestReader;
  /** The fate of the answer now awaited on this connection, if a fault took it. */
  answerFate: AnswerFate | undefined;
  /** Chunks of a delayed or held answer, and whether its delay has run out. */
  readonly answer: { chunks: Buffer[]; released: boolean; timer?: NodeJS.Timeout };
}

interface ActiveFault {
  readonly fault: AnswerFault;
  left: number;
}

export class FaultProxy extends EventEmitter {
  private mode: ProxyMode = 'pass';
  private readonly links = new Set<Link>();
  private faults: ActiveFault[] = [];
  /** Answers failed since the last `clearAnswerFaults()`. */
  private failed = 0;
  /** Every request seen since the last `clearAnswerFaults()`, in order. */
  readonly seen: SeenRequest[] = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {
    super();
  }

  /** A proxy on a free loopback port to `target` (`http://127.0.0.1:<port>`). */
  static async start(target: string): Promise<FaultProxy> {
    const { hostname, port } = new URL(target);
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('The proxy has no port');
    const proxy = new FaultProxy(server, address.port);
    server.on('connection', (client) => proxy.accept(client, hostname, Number(port)));
    return proxy;
  }

  /** `http://127.0.0.1:<port>`: an endpoint for the SDK. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Holds back every byte from now on, on open and new connections alike. */
  stall(): void {
    this.mode = 'stall';
  }

  /** Resets every open connection and every new one. */
  drop(): void {
    this.mode = 'drop';
    for (const link of this.links) this.reset(link);
  }

  /** Passes bytes again, delivering what was held back (held answers included). */
  resume(): void {
    this.mode = 'pass';
    for (const link of this.links) {
      for (const { to, chunk } of link.held.splice(0)) if (!to.destroyed) to.write(chunk);
      if (link.answerFate === 'hold') this.release(link);
    }
  }

  /** From now on, fails the answers of the requests `fault` matches (see AnswerFault). */
  failAnswers(fault: AnswerFault): void {
    this.faults.push({ fault, left: fault.times ?? Number.POSITIVE_INFINITY });
  }

  /** Fails no answer any more, and delivers those held back; forgets the requests seen. */
  clearAnswerFaults(): void {
    this.faults = [];
    this.failed = 0;
    this.seen.length = 0;
    for (const link of this.links) if (link.answerFate === 'hold') this.release(link);
  }

  /** Resolves once `count` answers have been failed since the last `clearAnswerFaults()`. */
  async answersFailed(count: number): Promise<void> {
    while (this.failed < count) await once(this, 'answer');
  }

  async close(): Promise<void> {
    for (const link of this.links) this.reset(link);
    this.server.close();
    await once(this.server, 'close');
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.mode === 'drop') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(port, host);
    const link: Link = {
      client,
      upstream,
      held: [],
      requests: new RequestReader(),
      answerFate: undefined,
      answer: { chunks: [], released: true },
    };
    this.links.add(link);
    client.on('data', (chunk: Buffer) => {
      for (const request of link.requests.read(chunk)) this.startAnswer(link, request);
      this.forward(link, upstream, chunk);
    });
    upstream.on('data', (chunk: Buffer) => this.answer(link, chunk));
    const close = () => {
      this.links.delete(link);
      clearTimeout(link.answer.timer);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', close);
      socket.on('error', close);
    }
  }

  private forward(link: Link, to: Socket, chunk: Buffer): void {
    if (this.mode === 'pass') {
      to.write(chunk);
    } else {
      link.held.push({ to, chunk });
      this.emit('held');
    }
  }

  /** A request was read in full: decides the fate of its answer. */
  private startAnswer(link: Link, request: RequestSeen): void {
    const active = this.faults.find(
      ({ fault, left }) =>
        left > 0 &&
        fault.operation === request.operation &&
        (fault.table === undefined || fault.table === request.table),
    );
    if (active) active.left -= 1;
    link.answerFate = active?.fault.fate;
    link.answer.chunks = [];
    link.answer.released = !active;
    this.seen.push({ ...request, faulted: active !== undefined });
  }

  /** Bytes of DynamoDB's answer: passed, or failed as the request's fault says. */
  private answer(link: Link, chunk: Buffer): void {
    const fate = link.answerFate;
    if (fate === undefined || link.answer.released) {
      this.forward(link, link.client, chunk);
      return;
    }
    if (fate === 'drop') {
      this.reset(link);
      this.failedOne(fate);
      return;
    }
    const first = link.answer.chunks.length === 0;
    link.answer.chunks.push(chunk);
    if (!first) return;
    this.failedOne(fate);
    if (fate !== 'hold') link.answer.timer = setTimeout(() => this.release(link), fate.delayMs);
  }

  private failedOne(fate: AnswerFate): void {
    this.failed += 1;
    this.emit('answer', fate);
  }

  /** Delivers a delayed or held answer, and passes the rest of it. */
  private release(link: Link): void {
    link.answer.released = true;
    clearTimeout(link.answer.timer);
    for (const chunk of link.answer.chunks.splice(0)) this.forward(link, link.client, chunk);
  }

  private reset(link: Link): void {
    this.links.delete(link);
    clearTimeout(link.answer.timer);
    link.client.resetAndDestroy();
    link.upstream.destroy();
  }
}
