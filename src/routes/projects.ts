import { Hono } from 'hono';
import type { Env } from '../env';
import { requireOperator } from '../http/auth';
import { forgetProject } from '../consume/project-cache';
import { createProject, updateProject } from '../platform/projects';
import { CreateProjectBody, UpdateProjectBody } from '../platform/schemas';
import { readJsonBody } from '../platform/validation';

/** Operator routes: create a project, change it. Authorization: Bearer OPERATOR_TOKEN. */
export const projectsRouter = new Hono<{ Bindings: Env }>();

projectsRouter.post('/v1/projects', async (c) => {
  requireOperator(c.env, c.req.header('authorization'));
  const body = await readJsonBody(c.req.raw, CreateProjectBody, { optional: true });
  return c.json(await createProject(c.env, body), 201);
});

// A disabled project can still be changed (that is how it is enabled again).
projectsRouter.patch('/v1/projects/:service_id', async (c) => {
  requireOperator(c.env, c.req.header('authorization'));
  const body = await readJsonBody(c.req.raw, UpdateProjectBody);
  const project = await updateProject(c.env, c.req.param('service_id'), body);
  forgetProject(project.service_id);
  return c.json(project);
});
