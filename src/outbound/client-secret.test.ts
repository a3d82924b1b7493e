import { describe, expect, it } from 'vitest';
import { CLIENT_SECRET_TEXT, fillSecretMarker, markClientSecret, newSecretMarker } from './client-secret';

const MARK = 'CLIENTSECRETmark';

describe('${CLIENT_SECRET} marking', () => {
  it('turns each written ${CLIENT_SECRET} into the marker, at any depth, keys untouched', () => {
    const template = { Authorization: 'Bearer ${CLIENT_SECRET}', nested: [{ key: '${CLIENT_SECRET}' }], '${CLIENT_SECRET}': 'k' };
    expect(markClientSecret(template, MARK)).toEqual({ Authorization: `Bearer ${MARK}`, nested: [{ key: MARK }], '${CLIENT_SECRET}': 'k' });
  });

  it('keeps other references and escaped $${...} text as they were written', () => {
    expect(markClientSecret('${body[a]}:${CLIENT_SECRET}:$${CLIENT_SECRET}:$${x}', MARK)).toBe(`\${body[a]}:${MARK}:$\${CLIENT_SECRET}:$\${x}`);
    expect(markClientSecret('$${CLIENT_SECRET} only', MARK)).toBe('$${CLIENT_SECRET} only');
    expect(markClientSecret(42, MARK)).toBe(42);
  });

  it('fills the marker with the secret, or with the text ${CLIENT_SECRET} for display', () => {
    const rendered = { a: `x${MARK}y${MARK}`, b: ['consumer sent ${CLIENT_SECRET}'] };
    expect(fillSecretMarker(rendered, MARK, 's3cr$&t')).toEqual({ a: 'xs3cr$&tys3cr$&t', b: ['consumer sent ${CLIENT_SECRET}'] });
    expect(fillSecretMarker(rendered, MARK, CLIENT_SECRET_TEXT).a).toBe('x${CLIENT_SECRET}y${CLIENT_SECRET}');
  });

  it('makes a new random marker each time', () => {
    expect(newSecretMarker()).toMatch(/^CLIENTSECRET[0-9a-f]{32}$/);
    expect(newSecretMarker()).not.toBe(newSecretMarker());
  });
});
