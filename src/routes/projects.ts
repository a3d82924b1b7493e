import { createRouter } from '../app';
import { projectOfOwnerCredential } from '../http/auth';
import { invalidParameter } from '../wire/errors';
import { takeRouteFlood } from '../http/flood';
import { PROJECT_PATH, guard, operatorOnly } from '../http/guards';
import { createProject, forgetProject, updateProject } from '../platform/projects';
import { CreateProjectBody, OwnerSettingsBody, UpdateProjectBody, operatorOnlyFieldOf } from '../platform/schemas';
import type { Project } from '../platform/types';
import { parseWith, readJsonBody } from '../platform/validation';

/** Operator routes: create a project, change it (Authorization: Bearer OPERATOR_TOKEN); and the owner key's own project and settings. */
export const projectsRouter = createRouter();

projectsRouter.post('/v1/projects', operatorOnly, async (c) => {
  const body = await readJsonBody(c.req.raw, CreateProjectBody, { optional: true });
  return c.json(await createProject(c.env, body), 201);
});

// A disabled project can still be changed (that is how it is enabled again).
projectsRouter.patch(PROJECT_PATH, operatorOnly, async (c) => {
  const body = await readJsonBody(c.req.raw, UpdateProjectBody);
  const project = await updateProject(c.env, c.req.param('service_id'), body);
  forgetProject(project.service_id);
  return c.json(project);
});

/** What the owner key reads of its project: never the secureRequest key, only whether one is set. */
const ownerView = (p: Project) => ({
  service_id: p.service_id,
  owner_id: p.owner_id,
  name: p.name,
  plan: p.plan,
  active: p.active,
  identity: p.identity,
  secure_request_key_set: p.secure_request_key_set,
  secure_request_destinations: p.secure_request_destinations,
  flood_limits: p.flood_limits,
});

/** Which project an owner key opens: how the CLI and other automation learn the service id from the key alone. */
projectsRouter.get('/v1/owner', async (c) => {
  await takeRouteFlood(c.env, 'FLOOD_OWNER', '', c.req.raw.headers);
  return c.json(ownerView(await projectOfOwnerCredential(c.env, c.req.header('authorization'))));
});

/** The owner changes its project's own settings; plan and active stay the operator's. */
projectsRouter.patch(`${PROJECT_PATH}/settings`, guard('owner', 'Only the project owner can change its settings.'), async (c) => {
  const value = await readJsonBody(c.req.raw);
  const operatorField = operatorOnlyFieldOf(value);
  if (operatorField) {
    throw invalidParameter(`Unknown field "${operatorField}": plan and active are changed by the operator, not the owner.`, { field: operatorField });
  }
  const project = await updateProject(c.env, c.get('project').service_id, parseWith(OwnerSettingsBody, value));
  forgetProject(project.service_id);
  return c.json(ownerView(project));
});
