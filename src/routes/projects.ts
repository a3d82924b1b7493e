import { createRouter } from '../app';
import { projectOfOwnerCredential } from '../http/auth';
import { invalidParameter } from '../wire/errors';
import { takeRouteFlood } from '../rate-limits/flood';
import { PROJECT_PATH, guard, operatorOnly } from '../http/guards';
import { createProject, forgetProject, updateProject } from '../platform/projects';
import { CreateProjectBody, OwnerSettingsBody, UpdateProjectBody, operatorOnlyFieldOf } from '../platform/schemas';
import type { Project } from '../platform/types';
import { parseWith, readJsonBody } from '../platform/validation';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';

/** Operator routes: create a project, change it (Authorization: Bearer OPERATOR_TOKEN); and the owner key's own project and settings. */
export const projectsRouter = createRouter();

const createProjectRoute = route({
  operationId: 'createProject',
  tag: 'projects',
  guard: operatorOnly,
  body: CreateProjectBody,
  bodyOptional: true,
  summary: 'Create a project: answers { service_id, owner_id, owner_key } (the owner key is shown once).',
  success: { status: 201, description: 'The new project and its owner key.', schema: answer.createdProjectAnswer },
});

projectsRouter.post('/v1/projects', ...createProjectRoute.middleware, async (c) => {
  const body = await readBody(c, createProjectRoute);
  return c.json(await createProject(c.env, body), 201);
});

const updateProjectRoute = route({
  operationId: 'updateProject',
  tag: 'projects',
  guard: operatorOnly,
  body: UpdateProjectBody,
  summary: "Change a project: active, plan, external identity issuer, secureRequest key and its Destinations, storage quota, the consume routes' flood limits.",
  success: ok('The changed project.', answer.projectAnswer),
});

// A disabled project can still be changed (that is how it is enabled again).
projectsRouter.patch(PROJECT_PATH, ...updateProjectRoute.middleware, async (c) => {
  const body = await readBody(c, updateProjectRoute);
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

const getOwnerProjectRoute = route({
  operationId: 'getOwnerProject',
  tag: 'projects',
  auth: 'owner-key',
  summary: 'The project an owner key opens (the key alone identifies it).',
  success: ok('The project.', answer.ownerProjectAnswer),
});

/** Which project an owner key opens: how the CLI and other automation learn the service id from the key alone. */
projectsRouter.get('/v1/owner', ...getOwnerProjectRoute.middleware, async (c) => {
  await takeRouteFlood(c.env, 'FLOOD_OWNER', '', c.req.raw.headers);
  return c.json(ownerView(await projectOfOwnerCredential(c.env, c.req.header('authorization'))));
});

const updateOwnerSettingsRoute = route({
  operationId: 'updateOwnerSettings',
  tag: 'projects',
  guard: guard('owner', 'Only the project owner can change its settings.'),
  body: OwnerSettingsBody,
  summary:
    "The owner changes its project's own settings: name, external identity issuer, secureRequest key and its Destinations, the consume routes' flood limits (plan and active are the operator's, refused as unknown fields).",
  success: ok('The project as GET /v1/owner answers it (never the key).', answer.ownerProjectAnswer),
});

/** The owner changes its project's own settings; plan and active stay the operator's. */
projectsRouter.patch(`${PROJECT_PATH}/settings`, ...updateOwnerSettingsRoute.middleware, async (c) => {
  const value = await readJsonBody(c.req.raw);
  const operatorField = operatorOnlyFieldOf(value);
  if (operatorField) {
    throw invalidParameter(`Unknown field "${operatorField}": plan and active are changed by the operator, not the owner.`, { field: operatorField });
  }
  const project = await updateProject(c.env, c.get('project').service_id, parseWith(updateOwnerSettingsRoute.body, value));
  forgetProject(project.service_id);
  return c.json(ownerView(project));
});
