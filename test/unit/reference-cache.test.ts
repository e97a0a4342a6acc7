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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { buildDocument } from '#tools/openapi/build-document';
import { toYaml } from '#tools/openapi/document-file';
import { referencePage, referenceRoutes } from '#tools/openapi/reference';

/**
 * The cache of the rendered API reference (tools/openapi/reference.ts), in a directory of each
 * test's own, rendered by a stand-in for Redocly's CLI that writes a small page and counts its
 * runs: a run that did not happen is seen, and a render costs milliseconds rather than seconds.
 * Redocly's own page, as served, is in test/http/api-reference.test.ts and test/browser.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, with the stand-in CLI and the cache directory it renders into. */
const setUp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-reference-cache-'));
  dirs.push(dir);
  const redoclyCli = join(dir, 'fake-redocly.cjs');
  const runs = join(dir, 'runs');
  writeFileSync(
    redoclyCli,
    `const { appendFileSync, writeFileSync } = require('node:fs');
const args = process.argv.slice(2);
appendFileSync(${JSON.stringify(runs)}, args.join(' ') + '\\n');
writeFileSync(args[args.indexOf('-o') + 1], '<!doctype html><title>rendered ' + args.join(' ') + '</title>');
`,
  );
  return {
    dir,
    cacheDirectory: join(dir, 'cache'),
    redoclyCli,
    runCount: () => (existsSync(runs) ? readFileSync(runs, 'utf8').split('\n').length - 1 : 0),
  };
};

const keptPages = (cacheDirectory: string) => (existsSync(cacheDirectory) ? readdirSync(cacheDirectory) : []);

const yaml = toYaml(buildDocument());

// Each case has a directory, stand-in and cache of its own: they run side by side.
describe.concurrent('the rendered API reference', () => {
  it('is rendered on a first start and kept as one page, which a second start serves without running Redocly', async ({
    expect,
  }) => {
    const { cacheDirectory, redoclyCli, runCount } = setUp();

    const first = (await referenceRoutes({ cacheDirectory, redoclyCli }))['/docs']?.body;
    const kept = keptPages(cacheDirectory);
    const second = (await referenceRoutes({ cacheDirectory, redoclyCli }))['/docs']?.body;

    expect(first).toContain('<title>rendered build-docs');
    expect(first).toContain('--openapi.routingBasePath=/docs');
    expect(kept).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.html$/)]);
    expect(readFileSync(join(cacheDirectory, kept[0] ?? ''), 'utf8')).toBe(first);
    expect(second).toBe(first);
    expect(runCount()).toBe(1);
  });

  it('is rendered again when the document or the path it is served at changes', async ({ expect }) => {
    const options = setUp();

    const page = await referencePage(yaml, '/docs', options);
    const elsewhere = await referencePage(yaml, '/reference', options);
    await referencePage(`${yaml}# changed\n`, '/docs', options);

    expect(options.runCount()).toBe(3);
    expect(keptPages(options.cacheDirectory)).toHaveLength(3);
    expect(elsewhere).not.toBe(page);
    expect(elsewhere).toContain('--openapi.routingBasePath=/reference');
  });

  it('is still served, rendered each time, when its cache can be neither read nor written', async ({
    expect,
  }) => {
    const { dir, redoclyCli, runCount } = setUp();
    const regularFile = join(dir, 'a-file');
    writeFileSync(regularFile, '');
    const cacheDirectory = join(regularFile, 'cache');

    const first = (await referenceRoutes({ cacheDirectory, redoclyCli }))['/docs']?.body;
    const second = (await referenceRoutes({ cacheDirectory, redoclyCli }))['/docs']?.body;

    expect(first).toContain('<title>rendered build-docs');
    expect(second).toContain('<title>rendered build-docs');
    expect(runCount()).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(['a-file', 'fake-redocly.cjs', 'runs']);
  });

  it('is not kept when rendering fails: the fallback page is served, and the next start renders', async ({
    expect,
  }) => {
    const { dir, cacheDirectory, redoclyCli, runCount } = setUp();

    const failed = (await referenceRoutes({ cacheDirectory, redoclyCli: join(dir, 'missing.cjs') }))['/docs']
      ?.body;
    const keptAfterFailure = keptPages(cacheDirectory);
    const next = (await referenceRoutes({ cacheDirectory, redoclyCli }))['/docs']?.body;

    expect(failed).toContain('The HTML reference could not be rendered');
    expect(keptAfterFailure).toEqual([]);
    expect(next).toContain('<title>rendered build-docs');
    expect(runCount()).toBe(1);
  });

  it("keeps the five newest pages: older documents' pages go when a new one is kept", async ({ expect }) => {
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
});
