/** A destination's answer as JSON text: itself when it parses as JSON (embedded, never walked again), else a JSON string of it. */
export function bodyAsJsonText(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify(text);
  }
}
