import { createRouter } from '../app';
import { PROJECT_PATH, operatorOnly } from '../http/guards';
import { forgetProject } from '../consume/project-cache';
import { createProject, updateProject } from '../platform/projects';
import { CreateProjectBody, UpdateProjectBody } from '../platform/schemas';
import { readJsonBody } from '../platform/validation';

/** Operator routes: create a project, change it. Authorization: Bearer OPERATOR_TOKEN. */
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
