import { spawnSync } from 'node:child_process';
import { LocalConfigError } from '#tools/local/local-config-error';

/**
 * The Java that DynamoDB Local needs, checked before anything starts: 17 or newer, with the
 * jdk.compiler module that runs its launcher (tools/local/LoopbackDynamoDbLocal.java). Free of
 * the SDK, so that `npm start` says what is missing within a second.
 */

/** Where the Java runtime DynamoDB Local needs comes from, for the messages below. */
const INSTALL_JAVA =
  'Install Java 17 or newer (Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`), ' +
  'or set DYNAMODB_ENDPOINT to a DynamoDB you already run.';

/** A setup problem of this machine, reported like a bad setting: one line, what to do. */
export class JavaMissingError extends LocalConfigError {
  override readonly name = 'JavaMissingError';
  constructor() {
    super(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found on PATH. ' +
        'Install it (Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`), ' +
        'or set DYNAMODB_ENDPOINT to a DynamoDB you already run.',
    );
  }
}

/** The `java` on PATH is older than DynamoDB Local needs (its classes are Java 17's). */
export class JavaTooOldError extends LocalConfigError {
  override readonly name = 'JavaTooOldError';
  constructor(readonly found: string) {
    super(`DynamoDB Local needs Java 17 or newer, and \`java\` on PATH is Java ${found}. ${INSTALL_JAVA}`);
  }
}

/**
 * The `java` on PATH has no compiler module (some minimal JRE builds): the launcher that keeps
 * DynamoDB Local on 127.0.0.1 is a Java source file, compiled in memory at each start.
 */
export class JavaCompilerMissingError extends LocalConfigError {
  override readonly name = 'JavaCompilerMissingError';
  constructor() {
    super(
      'DynamoDB Local is started through a one-file Java launcher, and the `java` on PATH lacks the jdk.compiler module that runs it. ' +
        "Use a full JDK 17+ or Debian/Ubuntu's openjdk-17-jre-headless (both have it), or set DYNAMODB_ENDPOINT to a DynamoDB you already run.",
    );
  }
}

/** The major version of the Java whose `--list-modules` or `-version` output this is (8 for "1.8.0"). */
export const javaMajorVersion = (output: string): number | undefined => {
  const match = /java\.base@(\d+)/.exec(output) ?? /version "(?:1\.)?(\d+)/.exec(output);
  return match?.[1] ? Number(match[1]) : undefined;
};

/**
 * Fails at once, with what to do, unless `java` on PATH can run DynamoDB Local and its launcher:
 * Java 17 or newer, with the jdk.compiler module. One probe: `--list-modules` names both (Java 8,
 * which does not know the option, is asked for its `-version` instead).
 */
export const assertJava = (): void => {
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  if (modules.error) throw new JavaMissingError();
  if (modules.status !== 0) {
    const version = spawnSync('java', ['-version'], { encoding: 'utf8' });
    const major = version.status === 0 ? javaMajorVersion(version.stderr) : undefined;
    if (major === undefined) throw new JavaMissingError();
    throw new JavaTooOldError(String(major));
  }
  const major = javaMajorVersion(modules.stdout);
  if (major === undefined) throw new JavaMissingError();
  if (major < 17) throw new JavaTooOldError(String(major));
  if (!/^jdk\.compiler@/m.test(modules.stdout)) throw new JavaCompilerMissingError();
};
