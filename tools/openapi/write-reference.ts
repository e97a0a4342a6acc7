import { mkdirSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { wantsHelp } from '#tools/command';

/** `npm run docs`: the HTML reference of docs/openapi.yaml, self-contained, in docs/site/index.html. */
if (wantsHelp(process.argv.slice(2))) {
  console.log(`Usage: npm run docs
Writes the HTML reference of docs/openapi.yaml, self-contained, to docs/site/index.html.`);
  process.exit(0);
}
const [{ OPENAPI_YAML_PATH }, { renderReference }] = await Promise.all([
  import('#tools/openapi/document-file'),
  import('#tools/openapi/reference'),
]);
const output = resolve(dirname(OPENAPI_YAML_PATH), 'site/index.html');
mkdirSync(dirname(output), { recursive: true });
await renderReference(OPENAPI_YAML_PATH, output);
console.log(`Wrote ${relative(process.cwd(), output)}`);
