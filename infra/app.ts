import { createPetStoreApp } from '#infra/pet-store-app';
import { StageNameError } from '#infra/stage-names';

/** `cdk synth` / `cdk deploy` entry (cdk.json): the only place that reads the process environment. */
try {
  const { app } = createPetStoreApp({ env: process.env });
  app.synth();
} catch (error) {
  // A stage name the app cannot build is the user's to fix: one sentence, no stack trace.
  if (!(error instanceof StageNameError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
