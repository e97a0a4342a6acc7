import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { relative } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { wantsHelp } from '#tools/command';

if (wantsHelp(process.argv.slice(2))) {
  console.log(`Usage: npm run check:openapi
Lints docs/openapi.yaml (Redocly), holds the typed client's committed types to the document, and validates docs/asyncapi.yaml.`);
  process.exit(0);
}
const [
  { ASYNCAPI_YAML_PATH, eventsDocumentProblems, readCommittedEventsYaml },
  { CLIENT_TYPES_PATH, clientTypes, committedClientTypes },
  { OPENAPI_YAML_PATH },
  { REDOCLY_CLI },
] = await Promise.all([
  import('#tools/asyncapi/document-file'),
  import('#tools/openapi/client-types'),
  import('#tools/openapi/document-file'),
  import('#tools/openapi/reference'),
]);

/**
 * `npm run check:openapi`: `redocly lint docs/openapi.yaml` (less Redocly's boxed Node.js 20
 * notice), the typed client's committed types held to what openapi-typescript makes of the
 * document, and docs/asyncapi.yaml validated by AsyncAPI's parser. Side by side: the lint is a
 * process, the rest is done in this one.
 */
const lint = async (): Promise<boolean> => {
  const child = spawn(process.execPath, [REDOCLY_CLI, 'lint', OPENAPI_YAML_PATH], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  process.stderr.write(stderr.replace(/^.*╔[^╚]*Node\.js 20 support is ending[^╚]*╚.*\n/m, ''));
  return code === 0;
};

const typesCurrent = async (): Promise<boolean> => {
  const [made, committed] = await Promise.all([clientTypes(), committedClientTypes()]);
  if (made === committed) return true;
  console.error(
    `${relative(process.cwd(), CLIENT_TYPES_PATH)} is not what openapi-typescript makes of ${relative(process.cwd(), OPENAPI_YAML_PATH)}: run npm run openapi`,
  );
  return false;
};

const eventsValid = async (): Promise<boolean> => {
  const problems = await eventsDocumentProblems(readCommittedEventsYaml());
  for (const problem of problems) console.error(`${relative(process.cwd(), ASYNCAPI_YAML_PATH)}: ${problem}`);
  return problems.length === 0;
};

const results = await Promise.all([lint(), typesCurrent(), eventsValid()]);
process.exitCode = results.every(Boolean) ? 0 : 1;
