import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE_PATH } from '#shared/http/paths';
import { gatewaySetup, type LocalGatewayOptions } from '#tools/local/gateway-setup';
import { gatewayServer } from '#tools/local/node-server';

export type { LocalGatewayOptions } from '#tools/local/gateway-setup';

export interface LocalGateway {
  readonly baseUrl: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * Connections waiting to be accepted. Node's default, 511, leaves the rest of a burst of new
 * connections to the client's SYN retries (after 1 s, then 3 s more): a burst then arrives over
 * seconds rather than at once. The kernel caps it (`net.core.somaxconn`, 4096 on current Linux).
 */
const LISTEN_BACKLOG = 4_096;

/**
 * The local stand-in for API Gateway: routes by the contracts, calls the real authorizer (TOKEN
 * event) and handlers (REST proxy events, payload 1.0), and answers its own failures with the Error object.
 */
export const startLocalGateway = async (options: LocalGatewayOptions): Promise<LocalGateway> => {
  const host = options.host ?? '127.0.0.1';
  const server = gatewayServer(gatewaySetup(options), options.timeouts);
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
