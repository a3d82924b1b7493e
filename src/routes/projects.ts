import { createRouter } from '../app';
import { projectOfOwnerCredential } from '../http/auth';
import { PROJECT_PATH, operatorOnly } from '../http/guards';
import { forgetProject } from '../consume/project-cache';
import { createProject, updateProject } from '../platform/projects';
import { CreateProjectBody, UpdateProjectBody } from '../platform/schemas';
import { readJsonBody } from '../platform/validation';

/** Operator routes: create a project, change it (Authorization: Bearer OPERATOR_TOKEN); and the owner key's own project. */
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

/** Which project an owner key opens: how the CLI and other automation learn the service id from the key alone. */
projectsRouter.get('/v1/owner', async (c) => {
  const { service_id, owner_id, name, plan, active } = await projectOfOwnerCredential(c.env, c.req.header('authorization'));
  return c.json({ service_id, owner_id, name, plan, active });
});
