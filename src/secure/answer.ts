/** The JSON text of the answers: `{ response, statusCode, url }` per request, `error` beside a failed one of an array. */
import { bodyAsJsonText } from '../outbound/body-json';
import type { MirrorOutcome } from './send';

/** One request's answer as JSON text. */
export function answerJson(url: string, outcome: MirrorOutcome): string {
  if (!outcome.ok) return JSON.stringify({ response: null, statusCode: 0, url, error: outcome.failure });
  return `{"response":${bodyAsJsonText(outcome.body)},"statusCode":${outcome.statusCode},"url":${JSON.stringify(url)}}`;
}
