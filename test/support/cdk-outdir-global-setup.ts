import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the test CDK apps of a project write their cloud assemblies (test/support/pet-store-app.ts). */
    cdkOutdir: string;
  }
}

/**
 * One directory per project run for the cloud assemblies its CDK apps synthesize, removed when
 * the project ends. Without an `outdir`, every App makes a `cdk.outXXXX` directory of its own in
 * the system's temporary directory and leaves it there; a test worker's exit hooks do not run
 * reliably, so the cleanup is the run's.
 */
export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-cdk-'));
  project.provide('cdkOutdir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
