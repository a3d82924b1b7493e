import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_MULTIPART_CHARS } from '../../schemas/forward-rules.js';
import { SvcError } from '../src/errors.js';
import { base64Length, flattenForm, multipartOf, namePath, preventSubmit } from '../src/forms.js';
import { toBase64 } from '../../schemas/encoding.js';

const formDataOf = (entries: Array<[string, string | Blob]>) => {
  const formData = new FormData();
  for (const [name, value] of entries) formData.append(name, value);
  return formData;
};

/** The bytes fetch would post for this FormData, with its boundary replaced by a fixed one. */
async function fetchBytes(formData: FormData): Promise<{ boundary: string; bytes: Buffer }> {
  const res = new Response(formData);
  const boundary = /boundary=(.+)$/.exec(res.headers.get('content-type') ?? '')![1];
  return { boundary, bytes: Buffer.from(await res.arrayBuffer()) };
}
const withBoundary = (bytes: Buffer, from: string, to: string) => Buffer.from(bytes.toString('latin1').split(from).join(to), 'latin1');

describe('form flattening (spec 4.3)', () => {
  it('repeated names collapse to an array, in order', () => {
    expect(
      flattenForm(
        formDataOf([
          ['tag', 'a'],
          ['tag', 'b'],
          ['tag', 'c'],
          ['one', '1'],
        ]),
      ),
    ).toEqual({ tag: ['a', 'b', 'c'], one: '1' });
  });

  it('bracketed names build nested objects; a[] always makes an array', () => {
    const fields = flattenForm(
      formDataOf([
        ['filter[status]', 'open'],
        ['filter[owner][name]', 'ada'],
        ['filter[owner][name]', 'bob'],
        ['ids[]', '7'],
        ['plain', 'x'],
      ]),
    );
    expect(fields).toEqual({ filter: { status: 'open', owner: { name: ['ada', 'bob'] } }, ids: ['7'], plain: 'x' });
    expect(namePath('a[b][c]')).toEqual(['a', 'b', 'c']);
    expect(namePath('a[]')).toEqual(['a', '']);
    expect(namePath('a[][b]')).toEqual(['a[][b]']);
    expect(namePath('a[b')).toEqual(['a[b']);
  });

  it('a bracketed name that runs into a plain value keeps its whole name', () => {
    expect(
      flattenForm(
        formDataOf([
          ['a', '1'],
          ['a[b]', '2'],
        ]),
      ),
    ).toEqual({ a: '1', 'a[b]': '2' });
  });

  it('files are dropped from a FormData and Blobs from a plain object, at any depth', () => {
    const file = new File(['bytes'], 'photo.png', { type: 'image/png' });
    expect(
      flattenForm(
        formDataOf([
          ['title', 't'],
          ['photo', file],
        ]),
      ),
    ).toEqual({ title: 't' });
    expect(flattenForm({ title: 't', photo: file, nested: { blob: new Blob(['x']), keep: 1 }, list: [file, 2] })).toEqual({
      title: 't',
      nested: { keep: 1 },
      list: [2],
    });
  });

  it('a field named __proto__ is an own field, not the prototype', () => {
    const fields = flattenForm(formDataOf([['__proto__[polluted]', 'yes']]))!;
    expect(Object.keys(fields)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('null and undefined flatten to nothing; other values are refused with INVALID_PARAMETER', () => {
    expect(flattenForm(null)).toBeUndefined();
    expect(flattenForm(undefined)).toBeUndefined();
    for (const bad of ['text', 3, ['a'], new Date()]) expect(() => flattenForm(bad)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER' }));
  });

  it('a submit event has its default prevented', () => {
    const event = new Event('submit', { cancelable: true });
    preventSubmit(event);
    expect(event.defaultPrevented).toBe(true);
  });
});

describe('multipart bytes (spec 4.3)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('are exactly what fetch would post for the FormData, files included, with its content type', async () => {
    const file = new File([new Uint8Array([0, 1, 2, 250, 255, 13, 10])], 'raw.bin', { type: 'application/octet-stream' });
    const formData = formDataOf([
      ['title', 'Grüße'],
      ['photo', file],
      ['title', 'two'],
    ]);
    const body = await multipartOf(formData);
    expect(body.content_type).toMatch(/^multipart\/form-data; boundary=.+$/);
    const sent = Buffer.from(body.base64, 'base64');
    const ours = /boundary=(.+)$/.exec(body.content_type)![1];
    const reference = await fetchBytes(formData);
    expect(withBoundary(sent, ours, 'BOUNDARY').equals(withBoundary(reference.bytes, reference.boundary, 'BOUNDARY'))).toBe(true);
    expect(sent.includes(Buffer.from([0, 1, 2, 250, 255, 13, 10]))).toBe(true);
  });

  it('a plain object becomes the FormData a form of those fields would be: arrays repeat, objects use a[b], Blobs stay files', async () => {
    const blob = new File(['xyz'], 'f.txt', { type: 'text/plain' });
    const body = await multipartOf({ a: 'x', list: ['1', '2'], nested: { b: 'y' }, file: blob, skipped: null });
    const reference = await fetchBytes(
      formDataOf([
        ['a', 'x'],
        ['list', '1'],
        ['list', '2'],
        ['nested[b]', 'y'],
        ['file', blob],
      ]),
    );
    const ours = /boundary=(.+)$/.exec(body.content_type)![1];
    expect(withBoundary(Buffer.from(body.base64, 'base64'), ours, 'B').equals(withBoundary(reference.bytes, reference.boundary, 'B'))).toBe(true);
  });

  it('base64 is standard base64 of every byte value', () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    expect(base64Length(bytes.length)).toBe(Buffer.from(bytes).toString('base64').length);
  });

  it('the cap is on the base64 text: at the cap it passes, one byte over it is INVALID_PARAMETER with the measured size', async () => {
    const overhead = (await fetchBytes(formDataOf([['f', new File([], 'f.bin')]]))).bytes.length;
    const largest = (MAX_MULTIPART_CHARS / 4) * 3 - overhead; // file bytes that encode to exactly the cap
    const at = await multipartOf(formDataOf([['f', new File([new Uint8Array(largest)], 'f.bin')]]));
    expect(at.base64.length).toBe(MAX_MULTIPART_CHARS);
    const err = await multipartOf(formDataOf([['f', new File([new Uint8Array(largest + 1)], 'f.bin')]])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: `multipart: the encoded body is ${MAX_MULTIPART_CHARS + 4} characters; at most ${MAX_MULTIPART_CHARS} are relayed.`,
    });
  });

  it('without FormData or Response in the environment it is NOT_SUPPORTED', async () => {
    vi.stubGlobal('Response', undefined);
    await expect(multipartOf({ a: 'x' })).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
    vi.unstubAllGlobals();
    vi.stubGlobal('FormData', undefined);
    await expect(multipartOf({ a: 'x' })).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
  });
});
