import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '#infra/project-root';
import type { StaticRoutes } from '#tools/local/static-files';
import { buildDocument } from '#tools/openapi/build-document';
import { toYaml } from '#tools/openapi/document-file';

export const REDOCLY_CLI = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
const TITLE = 'Pet Store API reference';

/** The one thing the inlined page still loads from Redocly's CDN, replaced by an inline SVG: the page calls no one. */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini-full.svg';
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" fill="#0044D4">Redoc</text></svg>',
)}`;

/** Renders an OpenAPI file to a self-contained HTML page; `basePath` is where it is served. */
export const renderReference = async (
  openApiFile: string,
  output: string,
  basePath?: string,
  signal?: AbortSignal,
): Promise<void> => {
  await promisify(execFile)(
    process.execPath,
    [
      REDOCLY_CLI,
      'build-docs',
      openApiFile,
      '--inlineBundle', // Redoc's scripts in the page, not from a CDN: it works offline
      '--openapi.disableTelemetry', // no usage data sent from a reader's browser
      ...(basePath ? [`--openapi.routingBasePath=${basePath}`] : []),
      '--title',
      TITLE,
      '-o',
      output,
    ],
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

/** `/docs`, `/openapi.yaml`, `/openapi.json` from the running code; an unrendered `/docs` links the YAML. */
export const referenceRoutes = async (): Promise<StaticRoutes> => {
  const document = buildDocument();
  const yaml = toYaml(document);
  const directory = mkdtempSync(join(tmpdir(), 'petstore-reference-'));
  const [source, rendered] = [join(directory, 'openapi.yaml'), join(directory, 'index.html')];
  // Should the process end meanwhile, Redocly is stopped and nothing is left in the temporary directory.
  const rendering = new AbortController();
  const leaveNothing = () => {
    rendering.abort();
    rmSync(directory, { recursive: true, force: true });
  };
  process.once('exit', leaveNothing);
  let html: string;
  try {
    await writeFile(source, yaml);
    await renderReference(source, rendered, '/docs', rendering.signal);
    html = await readFile(rendered, 'utf8');
  } catch (error) {
    html = fallbackPage(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));
  } finally {
    process.off('exit', leaveNothing);
    await rm(directory, { recursive: true, force: true });
  }
  const page = { contentType: 'text/html; charset=utf-8', body: html };
  return {
    '/docs': page,
    '/docs/*': page, // the page's own routes, so a reload of /docs/animals works
    '/openapi.yaml': { contentType: 'application/yaml', body: yaml },
    '/openapi.json': { contentType: 'application/json', body: `${JSON.stringify(document, null, 2)}\n` },
  };
};
