import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Renderer, referencePage, referenceRoutes, servedDocument } from '#tools/openapi/reference';

/**
 * The cache of the rendered API reference (tools/openapi/reference.ts), in a directory of each
 * test's own, rendered by an in-process stand-in for Redocly that writes a small page and counts
 * its renders: a render that did not happen is seen, and no test starts a process or waits on
 * one, so none depends on how fast a loaded machine starts Node. The document is built once, here,
 * as the server builds it once. Redocly's own page, as served, is in test/http/api-reference.test.ts
 * and test/browser.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, with the stand-in renderer and the cache directory it renders into. */
const setUp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-reference-cache-'));
  dirs.push(dir);
  const renders: string[] = [];
  const renderer: Renderer = async (openApiFile, output, { basePath } = {}) => {
    renders.push(basePath ?? '');
    const { length } = await readFile(openApiFile, 'utf8');
    await writeFile(
      output,
      `<!doctype html><title>rendered at ${basePath} from ${length} characters</title>`,
    );
  };
  return { dir, cacheDirectory: join(dir, 'cache'), renderer, renderCount: () => renders.length };
};

const failingRenderer: Renderer = async () => {
  throw new Error('Cannot find module redocly\nRequire stack: …');
};

const keptPages = (cacheDirectory: string) => (existsSync(cacheDirectory) ? readdirSync(cacheDirectory) : []);

const { yaml } = servedDocument();

// One after the other: none waits on anything, so side by side each would take as long as all.
describe('the rendered API reference', () => {
  it('is rendered on a first start and kept as one page, which a second start serves without rendering', async () => {
    const { cacheDirectory, renderer, renderCount } = setUp();

    const first = (await referenceRoutes({ cacheDirectory, renderer }))['/docs']?.body;
    const kept = keptPages(cacheDirectory);
    const second = (await referenceRoutes({ cacheDirectory, renderer }))['/docs']?.body;

    expect(first).toBe(`<!doctype html><title>rendered at /docs from ${yaml.length} characters</title>`);
    expect(kept).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.html$/)]);
    expect(readFileSync(join(cacheDirectory, kept[0] ?? ''), 'utf8')).toBe(first);
    expect(second).toBe(first);
    expect(renderCount()).toBe(1);
  });

  it('is rendered again when the document or the path it is served at changes', async () => {
    const options = setUp();

    const page = await referencePage(yaml, '/docs', options);
    const elsewhere = await referencePage(yaml, '/reference', options);
    await referencePage(`${yaml}# changed\n`, '/docs', options);

    expect(options.renderCount()).toBe(3);
    expect(keptPages(options.cacheDirectory)).toHaveLength(3);
    expect(elsewhere).not.toBe(page);
    expect(elsewhere).toContain('rendered at /reference');
  });

  it('is still served, rendered each time, when its cache can be neither read nor written', async () => {
    const { dir, renderer, renderCount } = setUp();
    const regularFile = join(dir, 'a-file');
    writeFileSync(regularFile, '');
    const cacheDirectory = join(regularFile, 'cache');

    const first = (await referenceRoutes({ cacheDirectory, renderer }))['/docs']?.body;
    const second = (await referenceRoutes({ cacheDirectory, renderer }))['/docs']?.body;

    expect(first).toContain('<title>rendered at /docs');
    expect(second).toBe(first);
    expect(renderCount()).toBe(2);
    expect(readdirSync(dir)).toEqual(['a-file']);
  });

  it('is not kept when rendering fails: the fallback page is served, and the next start renders', async () => {
    const { cacheDirectory, renderer, renderCount } = setUp();

    const failed = (await referenceRoutes({ cacheDirectory, renderer: failingRenderer }))['/docs']?.body;
    const keptAfterFailure = keptPages(cacheDirectory);
    const next = (await referenceRoutes({ cacheDirectory, renderer }))['/docs']?.body;

    expect(failed).toContain('The HTML reference could not be rendered (Cannot find module redocly)');
    expect(keptAfterFailure).toEqual([]);
    expect(next).toContain('<title>rendered at /docs');
    expect(renderCount()).toBe(1);
  });

  it("keeps the five newest pages: older documents' pages go when a new one is kept", async () => {
    const options = setUp();
    mkdirSync(options.cacheDirectory);
    const older = ['1', '2', '3', '4', '5', '6'].map((digit) => `${digit.repeat(64)}.html`);
    older.forEach((name, day) => {
      const path = join(options.cacheDirectory, name);
      writeFileSync(path, 'an earlier page');
      utimesSync(path, new Date(2020, 0, day + 1), new Date(2020, 0, day + 1));
    });

    const page = await referencePage(yaml, '/docs', options);

    const kept = keptPages(options.cacheDirectory);
    const [current] = kept.filter((name) => !older.includes(name));
    expect(kept.sort()).toEqual([...older.slice(2), current].sort());
    expect(readFileSync(join(options.cacheDirectory, current ?? ''), 'utf8')).toBe(page);
  });

  it('leaves nothing of a render in the temporary directory, rendered or failed', async () => {
    const { cacheDirectory, renderer } = setUp();
    const renderDirectories: string[] = [];
    const noting =
      (render: Renderer): Renderer =>
      async (openApiFile, ...rest) => {
        renderDirectories.push(join(openApiFile, '..'));
        return render(openApiFile, ...rest);
      };

    await referencePage(yaml, '/docs', { cacheDirectory, renderer: noting(renderer) });
    await referencePage(yaml, '/elsewhere', { cacheDirectory, renderer: noting(failingRenderer) }).catch(
      () => undefined,
    );

    expect(renderDirectories).toHaveLength(2);
    for (const directory of renderDirectories) expect(existsSync(directory), directory).toBe(false);
  });
});
