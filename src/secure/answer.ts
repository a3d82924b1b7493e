/** The JSON text of the answers: `{ response, statusCode, url }` per request, `error` beside a failed one of an array. */
import type { MirrorOutcome } from './send';

/** The answer's body as JSON text: itself when it parses as JSON (embedded, never walked again), else a JSON string. */
export function responseJson(body: string): string {
  try {
    JSON.parse(body);
    return body;
  } catch {
    return JSON.stringify(body);
  }
}

/** One request's answer as JSON text. */
export function answerJson(url: string, outcome: MirrorOutcome): string {
  if (!outcome.ok) return JSON.stringify({ response: null, statusCode: 0, url, error: outcome.failure });
  return `{"response":${responseJson(outcome.body)},"statusCode":${outcome.statusCode},"url":${JSON.stringify(url)}}`;
}
