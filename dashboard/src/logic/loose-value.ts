/**
 * How a form input shows a value that may be text or another JSON value (a row's value, a count, a
 * group): text as typed, anything else as its JSON. Typing `5` gives the number 5, `"5"` the text "5",
 * `abc` the text abc, and an empty input removes the member.
 */
export function looseText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return readsAsOtherJson(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

export function parseLoose(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// A text that would parse to something else ("5", "true", "[1]", "\"x\"", "") must show quoted to come back as text.
function readsAsOtherJson(text: string): boolean {
  if (text === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
