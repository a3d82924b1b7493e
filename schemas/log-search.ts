/**
 * The event inspector's search of a ticket's log (issue 37 item 4, an extension): filters the log's index
 * answers (outcome, error code, time range) and a value search in the request as received (`where` a path
 * into it, `equals` the value). Shared by the Worker (the query) and the dashboard (the path grammar).
 */
import * as z from 'zod';
import { timeParameter } from './forward-owner';
import { strictObject } from './strict';

export const SEARCH_OUTCOMES = ['ok', 'failed', 'check'] as const;
/** The roots a value search reads: the parsed JSON body, a header (by name, any case), a query parameter. */
export const WHERE_ROOTS = ['body', 'headers', 'query'] as const;
export type WhereRoot = (typeof WHERE_ROOTS)[number];
/** Segments after the root, at most. */
export const MAX_WHERE_DEPTH = 10;
/** Characters of `equals`, at most. */
export const MAX_EQUALS_CHARS = 1_000;

/** A path into the request as received: its root and the segments below it (a numeric one also indexes an array). */
export interface WherePath {
  root: WhereRoot;
  segments: string[];
}

const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;
/** Names that would reach an object's prototype rather than the request's own members. */
const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const WHERE_RULE = `must be body.<key>[.<key>…], headers.<name> or query.<name>: segments of letters, digits, _ and - (at most ${MAX_WHERE_DEPTH} below the root)`;

/** Reads `where`; a string why not when it is not of the grammar (no quotes, brackets, `$`, `..` or prototype names). */
export function parseWherePath(raw: string): WherePath | string {
  const [root, ...segments] = raw.split('.');
  if (!(WHERE_ROOTS as readonly string[]).includes(root)) return WHERE_RULE;
  if (segments.length === 0 || segments.length > MAX_WHERE_DEPTH) return WHERE_RULE;
  if (segments.some((s) => !SEGMENT.test(s) || PROTOTYPE_NAMES.has(s))) return WHERE_RULE;
  if (root !== 'body' && segments.length !== 1) return `${root} takes one name: ${root}.<name>`;
  return { root: root as WhereRoot, segments };
}

const wherePath = z.string().transform((raw, ctx) => {
  const path = parseWherePath(raw);
  if (typeof path === 'string') {
    ctx.addIssue({ code: 'custom', message: path });
    return z.NEVER;
  }
  return path;
});

/** An error code as answers carry it: upper case letters, digits and _. */
export const ERROR_CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;

export const logSearchQuerySchema = strictObject(
  {
    outcome: z.enum(SEARCH_OUTCOMES).optional(),
    code: z.string().regex(ERROR_CODE_PATTERN, 'must be an error code in upper case (TICKET_NOT_FOUND)').optional(),
    from: timeParameter.optional(),
    to: timeParameter.optional(),
    where: wherePath.optional(),
    equals: z.string().max(MAX_EQUALS_CHARS, `must be at most ${MAX_EQUALS_CHARS} characters`).optional(),
    limit: z.string().optional(),
    startKey: z.string().optional(),
  },
  {},
).superRefine((query, ctx) => {
  if (query.from !== undefined && query.to !== undefined && query.to < query.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'is before "from"' });
  if (query.where !== undefined && query.equals === undefined) ctx.addIssue({ code: 'custom', path: ['equals'], message: 'is required with "where"' });
  if (query.equals !== undefined && query.where === undefined) ctx.addIssue({ code: 'custom', path: ['where'], message: 'is required with "equals"' });
});
