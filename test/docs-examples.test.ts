import { describe, expect, it } from 'vitest';
import apiDoc from '../docs/api.md?raw';
import { call, createProject, putSecret } from './helpers/api';

const jsonBlocks = (markdown: string) => [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map(([, body]) => JSON.parse(body));

describe('examples in the docs', () => {
  it('the ticket in docs/api.md registers as written', async () => {
    const [ticket] = jsonBlocks(apiDoc);
    const project = await createProject();
    await putSecret(project, 'stripe', 'whsec_doc_example');
    const res = await call('PUT', `/v1/projects/${project.service_id}/tickets/payments`, { token: project.owner_key, body: ticket });
    expect(res.status).toBe(201);
    expect(res.json.rules_version).toBe(2);
  });
});
