import { EventEmitter, once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (DynamoDB Local) that can fail the way a network or a frozen
 * process does, for the tests of what the service does then:
 *
 * - `pass`: bytes flow both ways;
 * - `stall`: connections are accepted and kept, bytes sent either way are held back, as with a
 *   SIGSTOPped DynamoDB or a dead route; `resume()` delivers them and passes again;
 * - `drop`: every connection, open or new, is reset at once;
 * - `lose-answers`: connections opened now deliver their requests, but their answers never arrive
 *   (held back for good, even after the mode changes), as when a response is lost on the way: the
 *   request was applied, the client times out and retries on a new connection.
 *
 * It emits `held` each time it holds a chunk back, so a test can wait for a request to be stuck
 * instead of sleeping.
 */
export type ProxyMode = 'pass' | 'stall' | 'drop' | 'lose-answers';

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
  readonly held: { readonly to: Socket; readonly chunk: Buffer }[];
  /** Opened in `lose-answers` mode: its answers are held back for good. */
  readonly losesAnswers: boolean;
}

export class FaultProxy extends EventEmitter {
  private mode: ProxyMode = 'pass';
  private readonly links = new Set<Link>();

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

  /** Connections opened from now on lose their answers, for good (see `lose-answers`). */
  loseAnswers(): void {
    this.mode = 'lose-answers';
  }

  /**
   * Passes bytes again, delivering what was held back, except the answers of connections opened
   * in `lose-answers` mode: those stay lost.
   */
  resume(): void {
    this.mode = 'pass';
    for (const link of this.links) {
      if (link.losesAnswers) continue;
      for (const { to, chunk } of link.held.splice(0)) if (!to.destroyed) to.write(chunk);
    }
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
    const link: Link = { client, upstream, held: [], losesAnswers: this.mode === 'lose-answers' };
    this.links.add(link);
    const forward = (to: Socket) => (chunk: Buffer) => {
      const lost = link.losesAnswers && to === client;
      if (!lost && (this.mode === 'pass' || this.mode === 'lose-answers')) {
        to.write(chunk);
      } else {
        link.held.push({ to, chunk });
        this.emit('held');
      }
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const close = () => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', close);
      socket.on('error', close);
    }
  }

  private reset(link: Link): void {
    this.links.delete(link);
    link.client.resetAndDestroy();
    link.upstream.destroy();
  }
}
