/**
 * A multipart dispatch relays the form's own bytes, files included, with its multipart content type: the
 * destination receives exactly what the browser would have posted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/api';
import { forward, origin, settledEnvelope } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

/** The bytes and content type a browser posts for this form (text fields and a binary file). */
async function encodedForm(): Promise<{ content_type: string; bytes: Uint8Array }> {
  const form = new FormData();
  form.append('name', 'Zoë ✓');
  form.append('tags', 'a');
  form.append('tags', 'b');
  form.append('file', new File([new Uint8Array([0, 1, 2, 250, 255, 13, 10, 45, 45])], 'blob.bin', { type: 'application/octet-stream' }));
  const request = new Request('https://form.example/', { method: 'POST', body: form });
  return { content_type: request.headers.get('content-type')!, bytes: new Uint8Array(await request.arrayBuffer()) };
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

describe('multipart', () => {
  it('a direct request delivers the form bytes identical, with the multipart content type', async () => {
    const { content_type, bytes } = await encodedForm();
    const res = await forward(project, { url: `${origin}/echo-bytes`, multipart: { content_type, base64: base64(bytes) } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ method: 'POST', contentType: content_type, base64: base64(bytes) });
  });

  it('a queued PUT delivers the same bytes', async () => {
    const { content_type, bytes } = await encodedForm();
    const url = `${origin}/echo-bytes`;
    const res = await forward(project, { url, method: 'PUT', queue: 'forms', multipart: { content_type, base64: base64(bytes) } });
    const done = await settledEnvelope(project, { id: res.json.id, url, method: 'PUT' });
    expect(done.response_body).toEqual({ method: 'PUT', contentType: content_type, base64: base64(bytes) });
  });
});
