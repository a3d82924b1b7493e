/** Drives a job that fails on every try through its retries without waiting out their delays. */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Until `done`: each time a try of a job of `kind` has failed (job_tries counts it), makes the job due
 * now and fires the object's alarm, as the alarm would after the delay. Answers the tries seen (at most 15 s).
 */
export async function driveTries(stub: DurableObjectStub, kind: string, done: () => Promise<boolean>): Promise<number> {
  // -1: the first pass makes the job due at once (a delayed job waits for no failure to be tried).
  let seen = -1;
  const until = Date.now() + 15_000;
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`still not done after ${seen} failed tries of ${kind}`);
    const tries = await runInDurableObject(
      stub,
      (_instance, state) => state.storage.sql.exec<{ n: number }>('SELECT COALESCE(MAX(tries), 0) AS n FROM job_tries').one().n,
    );
    if (tries > seen) {
      seen = tries;
      await runInDurableObject(stub, (_instance, state) => void state.storage.sql.exec('UPDATE jobs SET run_at = ? WHERE kind = ?', Date.now(), kind));
      await runDurableObjectAlarm(stub);
    } else await sleep(20);
  }
  return seen;
}
