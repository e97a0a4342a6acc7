import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { CONTRACTS } from '#functions/operations';
import { buildEventsDocument } from '#tools/asyncapi/build-document';
import { ASYNCAPI_YAML_PATH, eventsYaml } from '#tools/asyncapi/document-file';
import { buildDocument } from '#tools/openapi/build-document';
import { CLIENT_TYPES_PATH, clientTypes } from '#tools/openapi/client-types';
import { OPENAPI_YAML_PATH, toYaml } from '#tools/openapi/document-file';
import { OPERATIONS_TABLE } from '#tools/openapi/operations-table';
import { THROTTLE_TABLE } from '#tools/openapi/throttle-table';

/**
 * `npm run openapi`: docs/openapi.yaml, the typed client's types made from it, docs/asyncapi.yaml
 * (the events), and the tables of docs/interface.md and docs/deploy.md, from the code.
 */
writeFileSync(OPENAPI_YAML_PATH, toYaml(buildDocument()));
console.log(`Wrote ${relative(process.cwd(), OPENAPI_YAML_PATH)}`);
writeFileSync(ASYNCAPI_YAML_PATH, eventsYaml(buildEventsDocument()));
console.log(`Wrote ${relative(process.cwd(), ASYNCAPI_YAML_PATH)}`);
writeFileSync(CLIENT_TYPES_PATH, await clientTypes());
console.log(`Wrote ${relative(process.cwd(), CLIENT_TYPES_PATH)}`);
for (const table of [OPERATIONS_TABLE, THROTTLE_TABLE]) {
  writeFileSync(table.path, table.update(table.read(), CONTRACTS));
  console.log(`Wrote the table below its marker in ${relative(process.cwd(), table.path)}`);
}
