/**
 * Vitest globalSetup: one `wrangler dev` for the whole client suite, instead of one per file. Each file
 * makes its own project on it (createTestProject in helpers/worker.ts), so files stay independent: every
 * route the tests call, and every flood limit, is keyed by the project.
 */
import type { TestProject } from 'vitest/node';
import { startFreshWorker } from './local-worker.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { stop, ...address } = await startFreshWorker();
  project.provide('sharedWorker', address);
  return stop;
}
