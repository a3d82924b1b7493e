import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HttpAnswer } from './owner-api';

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A tool's success: the JSON as text (what every client shows) and as structuredContent (what an agent reads). */
export function successResult(value: unknown): CallToolResult {
  const structured = isRecord(value) ? value : { value };
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: structured };
}

/** A refusal: `<CODE>: <message>`, and { code, message, detail? } so an agent can fix the named field. */
export function refusalResult(code: string, message: string, detail?: unknown): CallToolResult {
  const structured: Record<string, unknown> = { code, message };
  if (detail !== undefined) structured.detail = detail;
  return { content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: structured, isError: true };
}

/** An owner route's answer as a tool result: 2XX is a success, anything else the route's flat error body as a refusal. */
export function toolResultOf(answer: HttpAnswer): CallToolResult {
  if (answer.status >= 200 && answer.status < 300) return successResult(answer.json);
  const body = isRecord(answer.json) ? answer.json : {};
  const code = typeof body.code === 'string' ? body.code : 'INTERNAL_ERROR';
  const message = typeof body.message === 'string' ? body.message : `The owner route answered ${answer.status}.`;
  return refusalResult(code, message, body.detail);
}
