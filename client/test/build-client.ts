// Vitest global setup: the tests load the built client (client/dist), so build it first.
import { buildClient } from '../build.mjs';

export default function setup() {
  buildClient();
}
