/** Web origins that may read the API's answers (CORS): exact origins, or `*` alone for any. */
export type AllowedOrigins = readonly string[];

/** Any origin: what `npm start` allows unless told otherwise. Never a stage's setting. */
export const ANY_ORIGIN = '*';

export class CorsConfigError extends Error {
  override readonly name = 'CorsConfigError';
}

/** An origin as browsers send it (scheme, host, port; lower case): anything else never matches a request. */
export const checkOrigin = (origin: string): string => {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new CorsConfigError(`"${origin}" is not an origin such as https://app.example.com`);
  }
  if (!['http:', 'https:'].includes(url.protocol)) {
    // `localhost:5173` parses as a URL of scheme "localhost:": the scheme was left out.
    const meant = /^[a-z0-9.-]+:\d+$/i.test(origin) ? ` (did you mean http://${origin.toLowerCase()}?)` : '';
    throw new CorsConfigError(
      `"${origin}" is not an origin: an origin starts with http:// or https://, as in http://localhost:5173${meant}`,
    );
  }
  if (url.origin !== origin) {
    throw new CorsConfigError(
      `"${origin}" is not an origin as browsers send it: scheme, host and port only, lower case, no path (browsers would send ${url.origin})`,
    );
  }
  return origin;
};

/** A comma-separated list of origins, or `*`; blanks around commas are ignored. */
export const parseAllowedOrigins = (text: string): AllowedOrigins => {
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  if (origins.includes(ANY_ORIGIN)) {
    if (origins.length > 1) throw new CorsConfigError('"*" allows any origin: list no other with it');
    return [ANY_ORIGIN];
  }
  return [...new Set(origins.map(checkOrigin))];
};
