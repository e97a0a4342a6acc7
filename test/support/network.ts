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
