import { mkdirSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { OPENAPI_YAML_PATH } from '#tools/openapi/document-file';
import { renderReference } from '#tools/openapi/reference';

/** `npm run docs`: the HTML reference of docs/openapi.yaml, self-contained, in docs/site/index.html. */
const output = resolve(dirname(OPENAPI_YAML_PATH), 'site/index.html');
mkdirSync(dirname(output), { recursive: true });
await renderReference(OPENAPI_YAML_PATH, output);
console.log(`Wrote ${relative(process.cwd(), output)}`);
