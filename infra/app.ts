import { createPetStoreApp } from '#infra/pet-store-app';

/** `cdk synth` / `cdk deploy` entry (cdk.json): the only place that reads the process environment. */
const { app } = createPetStoreApp({ env: process.env });
app.synth();
