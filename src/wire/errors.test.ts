import { describe, expect, it } from 'vitest';
import { ActionError, SvcHttpError } from './errors';

describe('ActionError → failure', () => {
  it('carries code, message and detail into the failure an action result holds', () => {
    expect(new ActionError('ACTION_FAILED', 'No record r1 exists.', { field: 'record_id' }).toFailure()).toEqual({
      code: 'ACTION_FAILED',
      message: 'No record r1 exists.',
      detail: { field: 'record_id' },
    });
  });

  it('leaves detail out of the failure when the error has none', () => {
    expect(new ActionError('TIMEOUT', 'Too late.').toFailure()).toEqual({ code: 'TIMEOUT', message: 'Too late.' });
  });
});

describe('errors that wrap another keep it as cause, never in the body', () => {
  it('SvcHttpError', () => {
    const cause = new SyntaxError('Unexpected end of JSON input');
    const err = new SvcHttpError('INVALID_PARAMETER', 'Invalid "body": not valid JSON.', { cause });
    expect(err.cause).toBe(cause);
    expect(err.toBody()).toEqual({ code: 'INVALID_PARAMETER', message: 'Invalid "body": not valid JSON.' });
  });

  it('ActionError', () => {
    const cause = new Error('bad template');
    const err = new ActionError('INTERNAL_ERROR', 'A stored template cannot be read: bad template', undefined, { cause });
    expect(err.cause).toBe(cause);
    expect(err.toFailure()).toEqual({ code: 'INTERNAL_ERROR', message: 'A stored template cannot be read: bad template' });
  });
});
