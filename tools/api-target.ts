import { readFileSync } from 'node:fs';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { BASE_PATH } from '#shared/http/paths';
import { UserError } from '#tools/command';
import { QuotaExhausted, SUITE_USER_AGENT } from '#tools/contract/api-client';
import { dataDirHolder } from '#tools/local/data-dir-lock';
import {
  LOCAL_HOST,
  LocalConfigError,
  localDataDir,
  localDataPaths,
  readLocalSettings,
} from '#tools/local/settings';

/** The API a command talks to: its base URL (ending in `/v1`, no `/` after it) and a key. */
export interface ApiTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** A target that cannot be used: the command says why in one line and exits 2. */
export class TargetError extends UserError {
  override readonly name = 'TargetError';
}

export interface LocalTarget extends ApiTarget {
  readonly corsOrigins: AllowedOrigins;
}

/** The server `npm start` runs on PETSTORE_DATA_DIR, as its lock records it, else as its settings say. */
export const localServerTarget = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): LocalTarget => {
  const holder = dataDirHolder(localDataDir(env));
  let settings: ReturnType<typeof readLocalSettings>;
  try {
    settings = readLocalSettings(env);
  } catch (error) {
    if (error instanceof LocalConfigError) throw new TargetError(error.message);
    throw error;
  }
  const keyFile = localDataPaths(settings.dataDir).apiKey;
  let apiKey = holder?.apiKey ?? settings.apiKey;
  try {
    apiKey ??= readFileSync(keyFile, 'utf8').trim();
  } catch {
    throw new TargetError(
      `No API key: start the local server with npm start (it writes ${keyFile}), or give --key`,
    );
  }
  return {
    baseUrl: `http://${LOCAL_HOST}:${holder?.port ?? settings.port}${BASE_PATH}`,
    apiKey,
    corsOrigins: holder?.corsOrigins ?? settings.corsOrigins,
  };
};

export const remoteTarget = (url: string, apiKey: string | undefined, keySetting?: string): ApiTarget => {
  if (!/^https?:\/\/\S+\/v1\/?$/.test(url)) {
    throw new TargetError(
      `--url must be the API's base URL ending in /v1 (the stack output ApiUrl), not "${url}"`,
    );
  }
  if (!apiKey)
    throw new TargetError(
      `No API key: give --key <key>${keySetting ? ` or ${keySetting}` : ''} (npm run keys -- create … makes one)`,
    );
  return { baseUrl: url.replace(/\/+$/, ''), apiKey };
};

/** Fails at once, in one line, when nothing answers, the key is refused or its quota is spent. */
export const assertKeyAccepted = async ({ baseUrl, apiKey }: ApiTarget): Promise<void> => {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/pets?limit=1`, {
      // Production's firewall refuses a request without a User-Agent.
      headers: { Authorization: `Bearer ${apiKey}`, 'User-Agent': SUITE_USER_AGENT },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new TargetError(
      `No API answers at ${baseUrl} (${cause}): start it with npm start, or give --url and --key of a stage`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    const body = (await response.json().catch(() => ({}))) as { code?: unknown };
    const code = typeof body.code === 'string' ? ` ${body.code}` : '';
    throw new TargetError(
      `The API at ${baseUrl} refused the key (${response.status}${code}): give the key npm start printed, or one made for that stage with npm run keys -- create`,
    );
  }
  if (
    response.status === 429 &&
    ((await response.json().catch(() => ({}))) as { code?: unknown }).code === 'QUOTA_EXCEEDED'
  )
    throw new QuotaExhausted(baseUrl);
  await response.body?.cancel();
};
