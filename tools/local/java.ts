import { spawnSync } from 'node:child_process';
import { LocalConfigError } from '#tools/local/local-config-error';

/** The Java DynamoDB Local needs, checked before anything starts (free of the SDK: within a second). */

const INSTALL = 'Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`';
const OR_ENDPOINT = 'or set DYNAMODB_ENDPOINT to a DynamoDB you already run.';

export class JavaMissingError extends LocalConfigError {
  override readonly name = 'JavaMissingError';
  constructor() {
    super(
      `DynamoDB Local needs Java 17 or newer, and \`java\` was not found on PATH. Install it (${INSTALL}), ${OR_ENDPOINT}`,
    );
  }
}

export class JavaTooOldError extends LocalConfigError {
  override readonly name = 'JavaTooOldError';
  constructor(found: number) {
    super(
      `DynamoDB Local needs Java 17 or newer, and \`java\` on PATH is Java ${found}. Install Java 17 or newer (${INSTALL}), ${OR_ENDPOINT}`,
    );
  }
}

/** No jdk.compiler module (some minimal JREs): the launcher (LoopbackDynamoDbLocal.java) is compiled at each start. */
export class JavaCompilerMissingError extends LocalConfigError {
  override readonly name = 'JavaCompilerMissingError';
  constructor() {
    super(
      'DynamoDB Local is started through a one-file Java launcher, and the `java` on PATH lacks the jdk.compiler module that runs it. ' +
        `Use a full JDK 17+ or Debian/Ubuntu's openjdk-17-jre-headless (both have it), ${OR_ENDPOINT}`,
    );
  }
}

/** `--list-modules` names the version and jdk.compiler; Java 8, which does not know it, is asked for `-version`. */
export const assertJava = (): void => {
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  if (modules.error) throw new JavaMissingError();
  const listed = modules.status === 0;
  const version = listed ? undefined : spawnSync('java', ['-version'], { encoding: 'utf8' });
  const output = listed ? modules.stdout : version?.status === 0 ? version.stderr : '';
  // `java.base@17.0.2` in the modules, `version "1.8.0_392"` (Java 8) or `"11.0.2"` in -version's.
  const major = Number((/java\.base@(\d+)/.exec(output) ?? /version "(?:1\.)?(\d+)/.exec(output))?.[1]);
  if (!major) throw new JavaMissingError();
  if (!listed || major < 17) throw new JavaTooOldError(major);
  if (!/^jdk\.compiler@/m.test(modules.stdout)) throw new JavaCompilerMissingError();
};
