import { parseArgs } from 'node:util';
import { ANY_ORIGIN } from '#shared/allowed-origins';
import { ENV, optionalEnv } from '#shared/config';
import { assertKeyAccepted, localServerTarget, remoteTarget, TargetError } from '#tools/api-target';
import {
  CONSOLE,
  type CommandIo,
  isEntry,
  parsing,
  runCommand,
  USER_ERROR_EXIT,
  UserError,
  wantsHelp,
} from '#tools/command';
import { QuotaExhausted } from '#tools/contract/api-client';
import { CONTRACT_SUITE } from '#tools/contract/suite';
import { contractTarget } from '#tools/contract/target';
import { formatReport, runSuite } from './run-suite';

/** `npm run smoke` (USAGE): the contract suite against a running API; exits 1 when a check fails, 2 when it cannot run. */

const USAGE = `Usage: npm run smoke [-- --url <base URL ending in /v1> --key <API key> [--origin <allowed origin>] [--read-only] [--throttle-key <API key>]]
Without --url: the local server npm start runs on $PETSTORE_DATA_DIR (./.data): its port and key, from its lock.
--throttle-key: a key of its own, best on a small plan, that the throttling check may spend.
Environment: ${ENV.smoke.baseUrl}, ${ENV.smoke.apiKey}, ${ENV.smoke.origin}, ${ENV.smoke.throttleKey}.`;

/** A web client's dev server: the origin checked when npm start allows any. */
const SOME_ORIGIN = 'http://localhost:5173';

type Env = Readonly<Record<string, string | undefined>>;

const localServer = (env: Env) => {
  const { baseUrl, apiKey, corsOrigins } = localServerTarget(env);
  if (corsOrigins.includes(ANY_ORIGIN))
    return { baseUrl, apiKey, allowedOrigin: SOME_ORIGIN, origins: 'any' as const };
  const [first] = corsOrigins;
  // A server that allows no origin has no CORS to check.
  return { baseUrl, apiKey, ...(first ? { allowedOrigin: first, origins: 'listed' as const } : {}) };
};

const readOptions = (args: readonly string[], env: Env) => {
  const { values } = parsing(() =>
    parseArgs({
      args: [...args],
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        origin: { type: 'string' },
        'read-only': { type: 'boolean' },
        'throttle-key': { type: 'string' },
      },
    }),
  );
  const readOnly = values['read-only'] ?? false;
  const url = values.url ?? optionalEnv(ENV.smoke.baseUrl, env);
  const origin = values.origin ?? optionalEnv(ENV.smoke.origin, env);
  const throttleKey = values['throttle-key'] ?? optionalEnv(ENV.smoke.throttleKey, env);
  const apiKey = values.key || optionalEnv(ENV.smoke.apiKey, env);
  // A pipeline's first run on a new stage passes an empty secret: the stage has no key yet.
  if (url && !apiKey)
    throw new TargetError(
      `No API key for ${url}: a new stage has none until one is made. Make one on the stage's smoke plan, npm run -s keys -- create smoke --plan smoke --stage <stage> --table <the stack output ApiKeysTableName>, give it as --key (or ${ENV.smoke.apiKey}; in the pipeline, the environment's secret SMOKE_API_KEY), and run this again`,
    );
  const target = url ? remoteTarget(url, apiKey, ENV.smoke.apiKey) : localServer(env);
  return {
    ...target,
    ...(origin ? { allowedOrigin: origin } : {}),
    readOnly,
    ...(throttleKey ? { throttleKey } : {}),
  };
};

/** `npm run smoke`: resolves to the exit code; a run that cannot start says why in one line on `err`. */
export const main = async (
  args: readonly string[],
  env: Env = process.env,
  io: CommandIo = CONSOLE,
): Promise<number> => {
  if (wantsHelp(args)) {
    io.out(USAGE);
    return 0;
  }
  try {
    const options = readOptions(args, env);
    await assertKeyAccepted(options);
    const target = contractTarget(options);
    const results = await runSuite(CONTRACT_SUITE, target);
    io.out(formatReport(results, target.baseUrl, { readOnly: options.readOnly }));
    return results.some((result) => result.status === 'failed') ? 1 : 0;
  } catch (error) {
    if (error instanceof QuotaExhausted) io.err(`Stopped: ${error.message}`);
    else if (error instanceof UserError) io.err(`Cannot run the smoke suite: ${error.message}`);
    else throw error;
    return USER_ERROR_EXIT;
  }
};

if (isEntry(import.meta.url)) await runCommand((argv) => main(argv));
