import { accessSync, constants } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { ENV, optionalEnv } from '#shared/config';

/**
 * A real Chromium for the browser tests: the system's own (Debian's chromium-headless-shell, or
 * chromium, or Chrome), never a download. `CHROMIUM_PATH` names another one.
 */

export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

export const HOW_TO_INSTALL =
  'install one with `sudo apt-get install -y chromium-headless-shell` (Debian/Ubuntu) or set CHROMIUM_PATH';

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The Chromium to drive, or undefined when the machine has none. */
export const findChromium = (env: Readonly<Record<string, string | undefined>> = process.env) => {
  const named = optionalEnv(ENV.chromiumPath, env);
  if (named) return named;
  return CHROMIUM_CANDIDATES.find(executable);
};

/**
 * Chromium headless, as root can run it (`--no-sandbox`), with its own background traffic off so
 * that the only requests it makes are the pages'.
 */
export const launchChromium = async (): Promise<Browser> => {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(`No Chromium found: ${HOW_TO_INSTALL}`);
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
};
