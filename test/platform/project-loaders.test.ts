import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { consumingProject } from '../../src/consume/project-cache';
import { forgetProject } from '../../src/platform/projects';
import { loadActiveProject } from '../../src/platform/projects';
import { newProject, patchProject } from './worker-api';

/** What a refusal says, whoever loaded the project. */
async function refusal(load: Promise<unknown>) {
  const err = await load.then(
    () => null,
    (e: { code: string; message: string; status: number }) => e,
  );
  if (!err) throw new Error('the project was not refused');
  return { code: err.code, message: err.message, status: err.status };
}

describe('one project loader message', () => {
  it('the owner routes and the cached consume path refuse an unknown project the same way', async () => {
    const unknown = 'zzzzzzzzzzzzzzzzzzzz';
    forgetProject(unknown);
    const owner = await refusal(loadActiveProject(env, unknown));
    expect(owner.code).toBe('INVALID_SERVICE');
    expect(await refusal(consumingProject(env, unknown))).toEqual(owner);
  });

  it('the owner routes and the cached consume path refuse an inactive project the same way', async () => {
    const created = await newProject();
    expect((await patchProject(created.service_id, { active: false })).status).toBe(200);
    forgetProject(created.service_id);
    const owner = await refusal(loadActiveProject(env, created.service_id));
    expect(owner.code).toBe('SERVICE_DISABLED');
    expect(await refusal(consumingProject(env, created.service_id))).toEqual(owner);
  });
});
