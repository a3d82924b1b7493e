/**
 * A small JSON tokenizer for the inspector's syntax highlighting (issue 37 item 4): text in, tokens out,
 * each with the exact characters it covers. The page renders each token as a text node in a span, so
 * nothing of the data is ever read as HTML. Text that is not JSON comes back as one plain token.
 */
export type JsonTokenKind = 'key' | 'string' | 'number' | 'literal' | 'punct' | 'space' | 'plain';

export interface JsonToken {
  kind: JsonTokenKind;
  text: string;
}

const PATTERN = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|([{}[\],:])|(\s+)/y;

/** The tokens of `text` (joined, they give `text` back); one plain token when it does not read as JSON. */
export function jsonTokens(text: string): JsonToken[] {
  const tokens: JsonToken[] = [];
  PATTERN.lastIndex = 0;
  while (PATTERN.lastIndex < text.length) {
    const at = PATTERN.lastIndex;
    const m = PATTERN.exec(text);
    if (!m || m.index !== at) return [{ kind: 'plain', text }];
    if (m[1] !== undefined) {
      tokens.push({ kind: m[2] !== undefined ? 'key' : 'string', text: m[1] });
      if (m[2] !== undefined) tokens.push({ kind: 'punct', text: m[2] });
    } else if (m[3] !== undefined) tokens.push({ kind: 'number', text: m[3] });
    else if (m[4] !== undefined) tokens.push({ kind: 'literal', text: m[4] });
    else if (m[5] !== undefined) tokens.push({ kind: 'punct', text: m[5] });
    else tokens.push({ kind: 'space', text: m[6] });
  }
  return tokens;
}

/** A value as the inspector shows it: JSON text indented, a string that holds JSON as that JSON. */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}
