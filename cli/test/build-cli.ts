// Vitest global setup: the tests run the built bundle (cli/dist/svc.mjs), so build it first.
import { buildCli } from '../build.mjs';

export default async function setup() {
  await buildCli();
}
