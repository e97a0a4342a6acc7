import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { wantsHelp } from '#tools/command';

/**
 * `npm run openapi`: docs/openapi.yaml, the typed client's types made from it, docs/asyncapi.yaml
 * (the events), and the tables of docs/interface.md and docs/deploy.md, from the code. The code
 * loads after the usage is asked for, or not.
 */
if (wantsHelp(process.argv.slice(2))) {
  console.log(`Usage: npm run openapi
Writes docs/openapi.yaml, the typed client's types, docs/asyncapi.yaml and the generated tables of docs/interface.md and docs/deploy.md from the code.`);
  process.exit(0);
}
const [{ CONTRACTS }, { buildDocument }, { CLIENT_TYPES_PATH, clientTypes }, { OPENAPI_YAML_PATH, toYaml }] =
  await Promise.all([
    import('#functions/operations'),
    import('#tools/openapi/build-document'),
    import('#tools/openapi/client-types'),
    import('#tools/openapi/document-file'),
  ]);
const [
  { OPERATIONS_TABLE },
  { THROTTLE_TABLE },
  { buildEventsDocument },
  { ASYNCAPI_YAML_PATH, eventsYaml },
] = await Promise.all([
  import('#tools/openapi/operations-table'),
  import('#tools/openapi/throttle-table'),
  import('#tools/asyncapi/build-document'),
  import('#tools/asyncapi/document-file'),
]);
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
