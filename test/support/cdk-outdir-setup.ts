import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    cdkOutRoot: string;
  }
}

/**
 * One directory for every cloud assembly the infra tests synthesize (an App without `outdir`
 * writes a `cdk.out…` directory of its own in the temporary directory at every synth, and never
 * removes it), removed with everything in it when the run ends.
 */
export default function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), 'petstore-cdk-'));
  project.provide('cdkOutRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}
