import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { buildDocument } from '#tools/openapi/build-document';
import { OPENAPI_YAML_PATH, toYaml } from '#tools/openapi/document-file';

/** `npm run openapi`: regenerates docs/openapi.yaml from the code. */
const document = await buildDocument();
mkdirSync(dirname(OPENAPI_YAML_PATH), { recursive: true });
writeFileSync(OPENAPI_YAML_PATH, toYaml(document));
console.log(`Wrote ${relative(process.cwd(), OPENAPI_YAML_PATH)}`);
