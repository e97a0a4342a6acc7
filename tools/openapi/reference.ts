import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '#infra/project-root';
import { localCachePaths } from '#tools/local/settings';
import type { StaticRoutes } from '#tools/local/static-files';
import { buildDocument } from '#tools/openapi/build-document';
import { toYaml } from '#tools/openapi/document-file';

const fromHere = createRequire(import.meta.url);
export const REDOCLY_CLI = fromHere.resolve('@redocly/cli/bin/cli.js');
/** The CLI bundles Redoc, so its version decides the page's scripts and styles. */
const REDOCLY_VERSION = (fromHere('@redocly/cli/package.json') as { version: string }).version;
const TITLE = 'Pet Store API reference';

/** Where `npm start` keeps the pages it rendered, by a hash of their inputs, unless told (PETSTORE_CACHE_DIR). */
export const REFERENCE_CACHE = localCachePaths().reference;
/** Pages kept: enough for a few branches or worktrees, as each change of the document leaves one of 2.6 MB. */
const KEPT_PAGES = 5;

/** The one thing the inlined page still loads from Redocly's CDN, replaced by an inline SVG: the page calls no one. */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini-full.svg';
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" fill="#0044D4">Redoc</text></svg>',
)}`;

/** Redocly's options besides the files it reads and writes; part of the cache key, as they shape the page. */
const buildDocsOptions = (basePath?: string): string[] => [
  '--inlineBundle', // Redoc's scripts in the page, not from a CDN: it works offline
  '--openapi.disableTelemetry', // no usage data sent from a reader's browser
  ...(basePath ? [`--openapi.routingBasePath=${basePath}`] : []),
  '--title',
  TITLE,
];

/** What renders an OpenAPI file to an HTML page: Redocly (`renderReference`), or a test's stand-in. */
export type Renderer = (
  openApiFile: string,
  output: string,
  options?: { basePath?: string; signal?: AbortSignal },
) => Promise<void>;

/** Renders an OpenAPI file to a self-contained HTML page with Redocly's CLI; `basePath` is where it is served. */
export const renderReference: Renderer = async (openApiFile, output, { basePath, signal } = {}) => {
  await promisify(execFile)(
    process.execPath,
    [REDOCLY_CLI, 'build-docs', openApiFile, ...buildDocsOptions(basePath), '-o', output],
    // From the root, so the CLI reads the project's redocly.yaml (which turns its telemetry off).
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      ...(signal ? { signal } : {}),
    },
  );
  await writeFile(output, (await readFile(output, 'utf8')).replaceAll(REDOC_CDN_LOGO, INLINE_LOGO));
};

const fallbackPage = (reason: string) => `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>${TITLE}</title>
<p>The HTML reference could not be rendered (${reason.replace(/[<&]/g, '')}).
The document itself: <a href="/openapi.yaml">/openapi.yaml</a>, <a href="/openapi.json">/openapi.json</a>.</p></html>
`;

/** Renders `yaml` in a temporary directory: should the process end meanwhile, Redocly stops and nothing is left. */
const render = async (yaml: string, basePath: string, renderer: Renderer): Promise<string> => {
  const directory = mkdtempSync(join(tmpdir(), 'petstore-reference-'));
  const [source, rendered] = [join(directory, 'openapi.yaml'), join(directory, 'index.html')];
  const rendering = new AbortController();
  const leaveNothing = () => {
    rendering.abort();
    rmSync(directory, { recursive: true, force: true });
  };
  process.once('exit', leaveNothing);
  try {
    await writeFile(source, yaml);
    await renderer(source, rendered, { basePath, signal: rendering.signal });
    return await readFile(rendered, 'utf8');
  } finally {
    process.off('exit', leaveNothing);
    await rm(directory, { recursive: true, force: true });
  }
};

/** A hash of all that decides the page: the same inputs render the same page, so an earlier one serves. */
const cacheKey = async (yaml: string, basePath: string): Promise<string> => {
  // The CLI reads the project's redocly.yaml (it runs from the root); without one, its defaults.
  const config = await readFile(join(PROJECT_ROOT, 'redocly.yaml'), 'utf8').catch(() => '');
  const inputs = [yaml, buildDocsOptions(basePath), REDOCLY_VERSION, REDOC_CDN_LOGO, INLINE_LOGO, config];
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
};

/**
 * Keeps the page for the next start: written under a name of its own, then renamed, so a server starting
 * meanwhile reads a whole page or none; synchronous, so no exit falls between the two. The oldest pages
 * beyond the newest few go. A cache that cannot be written (a read-only node_modules) costs the next start
 * a render, no more.
 */
const keep = (file: string, html: string): void => {
  const directory = dirname(file);
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    mkdirSync(directory, { recursive: true });
    writeFileSync(temporary, html);
    renameSync(temporary, file);
    const pages = readdirSync(directory)
      .filter((name) => name.endsWith('.html'))
      .map((name) => ({ path: join(directory, name), writtenAt: statSync(join(directory, name)).mtimeMs }))
      .sort((a, b) => b.writtenAt - a.writtenAt);
    for (const { path } of pages.slice(KEPT_PAGES)) rmSync(path, { force: true });
  } catch {
    // A page half written (a full disk) goes.
    if (existsSync(temporary)) rmSync(temporary, { force: true });
  }
};

/** Where pages are kept and what renders them: the project's cache and Redocly, unless a test gives others. */
type CacheOptions = { cacheDirectory?: string; renderer?: Renderer };

/** The page for `yaml` served at `basePath`: an earlier start's, rendered from the same inputs, or a new one, kept. */
export const referencePage = async (
  yaml: string,
  basePath: string,
  { cacheDirectory = REFERENCE_CACHE, renderer = renderReference }: CacheOptions = {},
): Promise<string> => {
  const file = join(cacheDirectory, `${await cacheKey(yaml, basePath)}.html`);
  // None kept, or a cache that cannot be read: render.
  const kept = await readFile(file, 'utf8').catch(() => undefined);
  if (kept !== undefined) return kept;
  const html = await render(yaml, basePath, renderer);
  keep(file, html);
  return html;
};

interface ServedDocument {
  readonly yaml: string;
  readonly json: string;
}
let served: ServedDocument | undefined;

/**
 * The document the running code describes, as YAML and JSON: built once (about 0.2 CPU-s), as the
 * code does not change while the process runs (`npm run dev` restarts it on a change).
 */
export const servedDocument = (): ServedDocument => {
  if (!served) {
    const document = buildDocument();
    served = { yaml: toYaml(document), json: `${JSON.stringify(document, null, 2)}\n` };
  }
  return served;
};

/**
 * `/docs`, `/openapi.yaml`, `/openapi.json` from the running code; an unrendered `/docs` links the YAML
 * (and is not kept: the next start tries again).
 */
export const referenceRoutes = async (options?: CacheOptions): Promise<StaticRoutes> => {
  const { yaml, json } = servedDocument();
  const html = await referencePage(yaml, '/docs', options).catch((error: unknown) =>
    fallbackPage(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)),
  );
  const page = { contentType: 'text/html; charset=utf-8', body: html };
  return {
    '/docs': page,
    '/docs/*': page, // the page's own routes, so a reload of /docs/animals works
    '/openapi.yaml': { contentType: 'application/yaml', body: yaml },
    '/openapi.json': { contentType: 'application/json', body: json },
  };
};
