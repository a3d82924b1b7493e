import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { refusalResult } from './results';
import { INTERNAL_ERROR_MESSAGE } from '../wire/errors';

/** The input parts and the guard the tools share. */
export const ticketId = z.string().describe('The ticket id: 1 to 64 letters, digits, _ or -, starting with a letter or digit.');
export const startKey = z.string().optional().describe('The startKey of the previous page, to read the next one (page until endOfList is true).');
export const limit = z.int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 50).');
export const ms = (what: string) => z.int().min(0).optional().describe(`${what}, in milliseconds since the epoch.`);

/** Runs a tool; an unexpected failure is a generic refusal, logged, never a stack trace or its message. */
export const guarded = async (run: () => Promise<CallToolResult>): Promise<CallToolResult> => {
  try {
    return await run();
  } catch (err) {
    console.error('mcp tool failed', err instanceof Error ? (err.stack ?? err.message) : String(err));
    return refusalResult('INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE);
  }
};
