import { startLocalStack } from '#tools/local/local-stack';

/**
 * The local server (`npm start`'s stack) on an existing DynamoDB, as a process of its own so that
 * the load generator does not share its event loop. Prints `{ baseUrl, apiKey }` as one JSON line
 * once it listens; stops on SIGTERM or when its parent goes away (stdin closes).
 */
const [dataDir, dynamoDbEndpoint] = process.argv.slice(2);
if (!dataDir || !dynamoDbEndpoint) throw new Error('usage: e2e-server.ts <dataDir> <dynamoDbEndpoint>');

const stack = await startLocalStack({ dataDir, port: 0, dynamoDbEndpoint });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.stdout.write(`${JSON.stringify({ baseUrl: stack.gateway.baseUrl, apiKey: stack.apiKey })}\n`);
