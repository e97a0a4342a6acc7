import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ENV } from '#shared/config';
import { CONTRACT_SUITE } from '../../test/contract/suite';
import { contractTarget } from '../../test/contract/target';
import { formatReport, runSuite } from './run-suite';

/**
 * `npm run smoke`: the contract suite (test/contract/, the same checks the HTTP tests run)
 * against a running API, and a readable report; exits 1 when a check fails, 2 when it cannot run.
 *
 *   npm run smoke                                   the local server npm start runs (its port and key)
 *   npm run smoke -- --url <base URL> --key <key>   a deployed stage (or BASE_URL and API_KEY)
 *   npm run smoke -- … --origin <origin>            also check CORS for an origin the stage allows
 *
 * Safe on a stage in use: it reads, provokes errors that change nothing, and creates only pets
 * whose names start with `smoke-`.
 */

const USAGE = `Usage: npm run smoke [-- --url <base URL ending in /v1> --key <API key> [--origin <allowed origin>]]
Without --url: the local server (npm start) at http://127.0.0.1:$PORT/v1 and its key.
Environment: BASE_URL, API_KEY, SMOKE_ORIGIN.`;

class SmokeSetupError extends Error {}

const env = (name: string): string | undefined => process.env[name]?.trim() || undefined;

/** npm start's own address and key, as it prints them. */
const localServer = (): { baseUrl: string; apiKey: string; origin?: string; origins: 'listed' | 'any' } => {
  const baseUrl = `http://127.0.0.1:${env(ENV.local.port) ?? '3000'}/v1`;
  const keyFile = join(resolve(env(ENV.local.dataDir) ?? '.data'), 'api-key');
  let apiKey = env(ENV.local.apiKey);
  try {
    apiKey ??= readFileSync(keyFile, 'utf8').trim();
  } catch {
    throw new SmokeSetupError(
      `No API key: start the local server with npm start (it writes ${keyFile}), or give --key`,
    );
  }
  // npm start allows any origin unless PETSTORE_CORS_ORIGINS lists some.
  const origins = env(ENV.corsOrigins)
    ?.split(',')
    .map((origin) => origin.trim());
  if (origins === undefined || origins.includes('*')) {
    return { baseUrl, apiKey, origin: 'http://localhost:5173', origins: 'any' };
  }
  return { baseUrl, apiKey, origins: 'listed', ...(origins[0] ? { origin: origins[0] } : {}) };
};

const targetOptions = () => {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      origin: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const url = values.url ?? env('BASE_URL');
  const origin = values.origin ?? env('SMOKE_ORIGIN');
  if (!url) {
    const local = localServer();
    return { ...local, ...(origin ? { origin } : {}) };
  }
  const apiKey = values.key ?? env('API_KEY');
  if (!apiKey)
    throw new SmokeSetupError('No API key: give --key <key> or API_KEY (npm run keys -- create … makes one)');
  if (!/^https?:\/\/\S+\/v1\/?$/.test(url)) {
    throw new SmokeSetupError(
      `--url must be the API's base URL ending in /v1 (the stack output ApiUrl), not "${url}"`,
    );
  }
  return { baseUrl: url, apiKey, ...(origin ? { origin } : {}) };
};

/** Fails at once, saying so, when nothing answers at the base URL. */
const assertAnswers = async (baseUrl: string) => {
  try {
    await fetch(`${baseUrl.replace(/\/+$/, '')}/pets`, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new SmokeSetupError(
      `No API answers at ${baseUrl} (${cause}): start it with npm start, or give --url and --key of a stage`,
    );
  }
};

try {
  const options = targetOptions();
  await assertAnswers(options.baseUrl);
  const target = contractTarget({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    ...(options.origin ? { allowedOrigin: options.origin } : {}),
    ...('origins' in options ? { origins: options.origins } : {}),
  });
  const results = await runSuite(CONTRACT_SUITE, target);
  console.log(formatReport(results, target.baseUrl));
  process.exitCode = results.every((result) => result.ok) ? 0 : 1;
} catch (error) {
  if (!(error instanceof SmokeSetupError)) throw error;
  console.error(`Cannot run the smoke suite: ${error.message}`);
  process.exitCode = 2;
}
