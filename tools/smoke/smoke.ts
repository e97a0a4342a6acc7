import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ANY_ORIGIN } from '#shared/allowed-origins';
import { ENV, optionalEnv } from '#shared/config';
import { BASE_PATH } from '#shared/http/paths';
import { QuotaExhausted, SUITE_USER_AGENT } from '#tools/contract/api-client';
import { CONTRACT_SUITE } from '#tools/contract/suite';
import { contractTarget } from '#tools/contract/target';
import { LOCAL_HOST, LocalConfigError, localDataPaths, readLocalSettings } from '#tools/local/settings';
import { formatReport, runSuite } from './run-suite';

/**
 * `npm run smoke`: the contract suite (tools/contract/, the same checks the HTTP tests run)
 * against a running API, and a readable report: each check passed, failed (with why) or skipped
 * (with why it does not apply to this target); exits 1 when a check fails, 2 when it cannot run.
 *
 *   npm run smoke                                   the local server npm start runs (its port and key)
 *   npm run smoke -- --url <base URL> --key <key>   a deployed stage (or BASE_URL and API_KEY)
 *   npm run smoke -- … --origin <origin>            also check CORS for an origin the stage allows
 *                                                   (without one, those checks are skipped)
 *   npm run smoke -- … --read-only                  skip the checks that create pets (production)
 *   npm run smoke -- … --throttle-key <key>         also send faster than that key's plan allows,
 *                                                   to see its 429 (without one, that check is skipped)
 *
 * Safe on a stage in use: it reads, provokes errors that change nothing, and creates only pets
 * whose names start with `smoke-`; with --read-only it creates nothing at all. It keeps to the
 * key's plan (RateLimit-Policy), waits out a 429, and stops in one sentence on a spent quota.
 */

const USAGE = `Usage: npm run smoke [-- --url <base URL ending in /v1> --key <API key> [--origin <allowed origin>] [--read-only] [--throttle-key <API key>]]
Without --url: the local server (npm start) at http://${LOCAL_HOST}:$PORT/v1 and its key.
--throttle-key: a key of its own, best on a small plan, that the throttling check may spend.
Environment: ${ENV.smoke.baseUrl}, ${ENV.smoke.apiKey}, ${ENV.smoke.origin}, ${ENV.smoke.throttleKey}.`;

class SmokeSetupError extends Error {}

/** A web client's dev server: the origin checked when npm start allows any. */
const SOME_ORIGIN = 'http://localhost:5173';

/** npm start's own address, key and origins, read from the settings npm start reads. */
const localServer = () => {
  let settings: ReturnType<typeof readLocalSettings>;
  try {
    settings = readLocalSettings(process.env);
  } catch (error) {
    if (error instanceof LocalConfigError) throw new SmokeSetupError(error.message);
    throw error;
  }
  const baseUrl = `http://${LOCAL_HOST}:${settings.port}${BASE_PATH}`;
  const keyFile = localDataPaths(settings.dataDir).apiKey;
  let apiKey = settings.apiKey;
  try {
    apiKey ??= readFileSync(keyFile, 'utf8').trim();
  } catch {
    throw new SmokeSetupError(
      `No API key: start the local server with npm start (it writes ${keyFile}), or give --key`,
    );
  }
  const [first] = settings.corsOrigins;
  if (first === undefined || settings.corsOrigins.includes(ANY_ORIGIN)) {
    return { baseUrl, apiKey, origin: SOME_ORIGIN, origins: 'any' as const };
  }
  return { baseUrl, apiKey, origin: first, origins: 'listed' as const };
};

const readOptions = () => {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      origin: { type: 'string' },
      'read-only': { type: 'boolean' },
      'throttle-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const readOnly = values['read-only'] ?? false;
  const url = values.url ?? optionalEnv(ENV.smoke.baseUrl, process.env);
  const origin = values.origin ?? optionalEnv(ENV.smoke.origin, process.env);
  const throttleKey = values['throttle-key'] ?? optionalEnv(ENV.smoke.throttleKey, process.env);
  const throttling = throttleKey ? { throttleKey } : {};
  if (!url) {
    const local = localServer();
    return { ...local, ...(origin ? { origin } : {}), readOnly, ...throttling };
  }
  const apiKey = values.key || optionalEnv(ENV.smoke.apiKey, process.env);
  // A pipeline's first run on a new stage passes an empty secret: the stage has no key yet.
  if (!apiKey)
    throw new SmokeSetupError(
      `No API key for ${url}: a new stage has none until one is made. Make one on the stage's smoke plan, npm run -s keys -- create smoke --plan smoke --stage <stage> --table <the stack output ApiKeysTableName>, give it as --key (or ${ENV.smoke.apiKey}; in the pipeline, the environment's secret SMOKE_API_KEY), and run this again`,
    );
  if (!/^https?:\/\/\S+\/v1\/?$/.test(url)) {
    throw new SmokeSetupError(
      `--url must be the API's base URL ending in /v1 (the stack output ApiUrl), not "${url}"`,
    );
  }
  return { baseUrl: url, apiKey, ...(origin ? { origin } : {}), readOnly, ...throttling };
};

/**
 * Fails at once, in one line, when nothing answers at the base URL or the API refuses the key
 * (401 or 403): every check of the suite would fail for that one reason.
 */
const assertKeyAccepted = async (baseUrl: string, apiKey: string) => {
  let response: Response;
  try {
    response = await fetch(`${baseUrl.replace(/\/+$/, '')}/pets?limit=1`, {
      headers: { Authorization: `Bearer ${apiKey}`, 'User-Agent': SUITE_USER_AGENT },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new SmokeSetupError(
      `No API answers at ${baseUrl} (${cause}): start it with npm start, or give --url and --key of a stage`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    const body = (await response.json().catch(() => ({}))) as { code?: unknown };
    const code = typeof body.code === 'string' ? ` ${body.code}` : '';
    throw new SmokeSetupError(
      `The API at ${baseUrl} refused the key (${response.status}${code}): give the key npm start printed, or one made for that stage with npm run keys -- create`,
    );
  }
  if (
    response.status === 429 &&
    ((await response.json().catch(() => ({}))) as { code?: unknown }).code === 'QUOTA_EXCEEDED'
  )
    throw new QuotaExhausted('before the first check');
  await response.body?.cancel();
};

/** The one sentence a run stopped by a spent quota ends with. */
const quotaSentence = (baseUrl: string) =>
  `Stopped: the key's plan quota at ${baseUrl} is used up (429 QUOTA_EXCEEDED), so every further check would fail for that reason alone; run again once the quota resets (00:00 UTC, or the 1st of the month for a monthly plan), or give a key on a plan with quota left.`;

let stoppedAt: string | undefined;
try {
  const options = readOptions();
  stoppedAt = options.baseUrl;
  await assertKeyAccepted(options.baseUrl, options.apiKey);
  const target = contractTarget({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    readOnly: options.readOnly,
    ...(options.origin ? { allowedOrigin: options.origin } : {}),
    ...('origins' in options ? { origins: options.origins } : {}),
    ...(options.throttleKey ? { throttleKey: options.throttleKey } : {}),
  });
  const results = await runSuite(CONTRACT_SUITE, target);
  console.log(formatReport(results, target.baseUrl, { readOnly: options.readOnly }));
  process.exitCode = results.some((result) => result.status === 'failed') ? 1 : 0;
} catch (error) {
  if (error instanceof QuotaExhausted) {
    console.error(quotaSentence(stoppedAt ?? ''));
    process.exitCode = 2;
  } else if (error instanceof SmokeSetupError) {
    console.error(`Cannot run the smoke suite: ${error.message}`);
    process.exitCode = 2;
  } else throw error;
}
