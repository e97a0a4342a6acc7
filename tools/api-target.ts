import { readFileSync } from 'node:fs';
import { BASE_PATH } from '#shared/http/paths';
import { LOCAL_HOST, LocalConfigError, localDataPaths, readLocalSettings } from '#tools/local/settings';

/** The API a command talks to: its base URL (ending in `/v1`, no `/` after it) and a key. */
export interface ApiTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** A target that cannot be used: the command says why in one line and exits 2. */
export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** `npm start`'s own address and key, read from the settings npm start reads (PORT, PETSTORE_DATA_DIR…). */
export const localServerTarget = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): ApiTarget => {
  let settings: ReturnType<typeof readLocalSettings>;
  try {
    settings = readLocalSettings(env);
  } catch (error) {
    if (error instanceof LocalConfigError) throw new TargetError(error.message);
    throw error;
  }
  const keyFile = localDataPaths(settings.dataDir).apiKey;
  let apiKey = settings.apiKey;
  try {
    apiKey ??= readFileSync(keyFile, 'utf8').trim();
  } catch {
    throw new TargetError(
      `No API key: start the local server with npm start (it writes ${keyFile}), or give --key`,
    );
  }
  return { baseUrl: `http://${LOCAL_HOST}:${settings.port}${BASE_PATH}`, apiKey };
};

/** A deployed stage (or any server): its base URL, the stack output `ApiUrl`, and a key of it. */
export const remoteTarget = (url: string, apiKey: string | undefined): ApiTarget => {
  if (!/^https?:\/\/\S+\/v1\/?$/.test(url)) {
    throw new TargetError(
      `--url must be the API's base URL ending in /v1 (the stack output ApiUrl), not "${url}"`,
    );
  }
  if (!apiKey) throw new TargetError('No API key: give --key <key> (npm run keys -- create … makes one)');
  return { baseUrl: url.replace(/\/+$/, ''), apiKey };
};

/** Fails at once, saying so, when nothing answers at the target's base URL. */
export const assertAnswers = async (target: ApiTarget): Promise<void> => {
  try {
    await fetch(`${target.baseUrl}/pets`, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new TargetError(
      `No API answers at ${target.baseUrl} (${cause}): start it with npm start, or give --url and --key of a stage`,
    );
  }
};
