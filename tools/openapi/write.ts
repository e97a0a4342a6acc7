import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { CONTRACTS } from '#functions/operations';
import { buildDocument } from '#tools/openapi/build-document';
import { OPENAPI_YAML_PATH, toYaml } from '#tools/openapi/document-file';
import { INTERFACE_DOC_PATH, readInterfaceDoc, withOperationsTable } from '#tools/openapi/operations-table';
import { DEPLOY_DOC_PATH, readDeployDoc, withThrottleTable } from '#tools/openapi/throttle-table';

/**
 * `npm run openapi`: regenerates docs/openapi.yaml, docs/interface.md's table of operations and
 * docs/deploy.md's table of the throttle's bounds, from the code.
 */
writeFileSync(OPENAPI_YAML_PATH, toYaml(buildDocument()));
console.log(`Wrote ${relative(process.cwd(), OPENAPI_YAML_PATH)}`);
writeFileSync(INTERFACE_DOC_PATH, withOperationsTable(readInterfaceDoc(), CONTRACTS));
console.log(`Wrote the table of operations in ${relative(process.cwd(), INTERFACE_DOC_PATH)}`);
writeFileSync(DEPLOY_DOC_PATH, withThrottleTable(readDeployDoc(), CONTRACTS));
console.log(`Wrote the table of the throttle's bounds in ${relative(process.cwd(), DEPLOY_DOC_PATH)}`);
