import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { PROJECT_ROOT } from '#infra/project-root';
import { OPENAPI_YAML_PATH } from '#tools/openapi/document-file';

/** The typed client's types, committed beside its example. */
export const CLIENT_TYPES_PATH = join(PROJECT_ROOT, 'docs', 'client', 'pet-store-api.d.ts');

/**
 * What openapi-typescript makes of docs/openapi.yaml, called as its command line calls it. Its
 * own Redocly rules check the document (`npm run check:openapi` lints it with the project's);
 * no process, so `npm run openapi` and `npm run check:openapi`, which holds the committed file to
 * it, are quick. It loads the TypeScript compiler (about 2.5 CPU-s), so no test file imports it.
 */
export const clientTypes = async (): Promise<string> =>
  `${COMMENT_HEADER}${astToString(await openapiTS(pathToFileURL(OPENAPI_YAML_PATH), { silent: true }))}`;

/** The committed types, to compare with `clientTypes()`. */
export const committedClientTypes = (): Promise<string> => readFile(CLIENT_TYPES_PATH, 'utf8');
