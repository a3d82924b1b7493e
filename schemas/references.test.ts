import { describe, expect, it } from 'vitest';
import { FieldIssueError, type FieldIssue } from './field-issue';
import {
  VALID_REFERENCE_FORMS,
  isWholeReference,
  parseRowKey,
  parseTemplate,
  rewriteLegacyReferences,
  validateTemplate,
  type TemplateContext,
} from './references';

const TOP: TemplateContext = { inThen: false, inErr: false, allowClientSecret: false };
const EVERYWHERE: TemplateContext = { inThen: true, inErr: true, allowClientSecret: true };

function refusal(text: string, ctx: TemplateContext = EVERYWHERE): FieldIssue {
  try {
    validateTemplate(text, ctx, 'actions[0].exe.url');
  } catch (error) {
    expect(error).toBeInstanceOf(FieldIssueError);
    return (error as FieldIssueError).issue;
  }
  throw new Error(`expected ${text} to be refused`);
}

describe('parseTemplate splits literal text and references', () => {
  it('keeps text outside ${ } literal', () => {
    expect(parseTemplate('order $5 {x}')).toEqual([{ kind: 'literal', text: 'order $5 {x}' }]);
  });
  it('reads a nested path: ${body[order][id]}', () => {
    expect(parseTemplate('id=${body[order][id]}!')).toEqual([
      { kind: 'literal', text: 'id=' },
      { kind: 'ref', ref: { root: 'body', path: ['order', 'id'] }, raw: '${body[order][id]}' },
      { kind: 'literal', text: '!' },
    ]);
  });
  it('writes $${...} as a literal ${...}', () => {
    expect(parseTemplate('cost $${body[x]} ${ip}')).toEqual([
      { kind: 'literal', text: 'cost ${body[x]} ' },
      { kind: 'ref', ref: { root: 'ip', path: [] }, raw: '${ip}' },
    ]);
  });
  it('reads ${data...} (older name) as body', () => {
    expect(parseTemplate('${data[a]}')).toEqual([{ kind: 'ref', ref: { root: 'body', path: ['a'] }, raw: '${data[a]}' }]);
  });
  it('lets a key hold characters other than brackets, e.g. a header name with a dash', () => {
    expect(parseTemplate('${headers[content-type]}')[0]).toMatchObject({ ref: { root: 'headers', path: ['content-type'] } });
  });
});

describe('isWholeReference tells a value-keeping reference from text', () => {
  it.each([
    ['${body}', true],
    ['${response[body][id]}', true],
    ['${body} ', false],
    ['x${body}', false],
    ['$${body}', false],
    ['${id}', false],
    ['plain', false],
  ])('%s → %s', (text, whole) => expect(isWholeReference(text)).toBe(whole));
});

describe('every valid form of spec 2.5 is accepted', () => {
  it.each([
    '${body}',
    '${body[k]}',
    '${body[a][b][c]}',
    '${params}',
    '${params[q][r]}',
    '${headers[x-id]}',
    '${placeholder[ORDER_ID]}',
    '${placeholder[_x1]}',
    '${user}',
    '${user[email]}',
    '${ip}',
    '${user_agent}',
    '${method}',
    '${record_access}',
    '${response}',
    '${response[body][items][0]}',
    '${error}',
    '${error[code]}',
    '${error[detail][status]}',
    '${ticket}',
    '${ticket[consume_id]}',
    '${ticket[hash]}',
    '${CLIENT_SECRET}',
    '${data}',
    '${data[x]}',
  ])('%s', (text) => expect(() => validateTemplate(text, EVERYWHERE, 'p')).not.toThrow());
});

describe('any other form inside ${ } is refused with the valid forms listed', () => {
  it.each([
    '${id}',
    '${ip[x]}',
    '${placeholder}',
    '${[ip]}',
    '${headers}',
    '${headers[a][b]}',
    '${placeholder[1ABC]}',
    '${placeholder[A][B]}',
    '${error[status]}',
    '${ticket[secret]}',
    '${ticket[id][x]}',
    '${CLIENT_SECRET[x]}',
    '${method[x]}',
    '${ body }',
    '${body[]}',
    '${Body}',
    'unclosed ${body',
    '${body[a}',
  ])('%s', (text) => {
    const error = refusal(text);
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.field).toBe('actions[0].exe.url');
    expect(error.message.startsWith('actions[0].exe.url: ')).toBe(true);
    expect(error.message).toContain(VALID_REFERENCE_FORMS);
  });
});

describe('${result} was removed', () => {
  it('is refused with a message pointing at ${response} in a Then chain', () => {
    const error = refusal('${result[id]}');
    expect(error.message).toContain('${response}');
    expect(error.message).toContain('Then chain');
  });
});

describe('context rules', () => {
  it('${response} is refused outside a Then chain and accepted inside one', () => {
    expect(refusal('${response[status]}', TOP).message).toContain('Then chain');
    expect(() => validateTemplate('${response[status]}', { ...TOP, inThen: true }, 'p')).not.toThrow();
  });
  it('${error} is refused outside an err chain and accepted inside one', () => {
    expect(refusal('${error[message]}', TOP).message).toContain('err chain');
    expect(() => validateTemplate('${error[message]}', { ...TOP, inErr: true }, 'p')).not.toThrow();
  });
  it('${CLIENT_SECRET} is refused unless allowed and accepted when allowed', () => {
    expect(refusal('Bearer ${CLIENT_SECRET}', TOP).message).toContain('secretName');
    expect(() => validateTemplate('Bearer ${CLIENT_SECRET}', { ...TOP, allowClientSecret: true }, 'p')).not.toThrow();
  });
  it('a restricted context (cond rows) accepts only the listed roots', () => {
    const cond: TemplateContext = { inThen: true, inErr: false, allowClientSecret: false, only: ['response', 'placeholder'] };
    expect(() => validateTemplate('${response[body][ok]} ${placeholder[A]}', cond, 'p')).not.toThrow();
    expect(refusal('${body[x]}', cond).message).toContain('only');
  });
  it('a context refusal also lists the valid forms', () => {
    expect(refusal('${response}', TOP).message).toContain(VALID_REFERENCE_FORMS);
  });
});

describe('rewriteLegacyReferences writes ${data...} as ${body...}', () => {
  it.each([
    ['${data}', '${body}'],
    ['id ${data[order][id]} and ${data}', 'id ${body[order][id]} and ${body}'],
    ['$${data[x]} stays literal', '$${data[x]} stays literal'],
    ['${body[data]} is untouched', '${body[data]} is untouched'],
    ['no references', 'no references'],
  ])('%s → %s', (text, stored) => expect(rewriteLegacyReferences(text)).toBe(stored));
});

describe('parseRowKey reads condition row keys', () => {
  it.each([
    ['id', ['id']],
    ['order[id]', ['order', 'id']],
    ['items[0][sku]', ['items', '0', 'sku']],
    ['', []],
  ])('%s → %j', (key, path) => expect(parseRowKey(key)).toEqual(path));
  it.each(['order[id', 'order]', '[id]', 'a[]', 'a[b]c'])('refuses the malformed key %s', (key) => {
    expect(() => parseRowKey(key)).toThrow(/not a valid key/);
  });
});
