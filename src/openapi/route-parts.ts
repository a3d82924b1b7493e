/** Pieces the route declarations share: paging parameters, plain answers, query text. */
import { z } from 'zod';
import { deletedAnswer, receiptAnswer } from '../../schemas/answers';
import type { QueryParameter } from './route';

export const textParameter = (description: string): QueryParameter => ({ description, schema: z.string() });

export const PAGING: Record<string, QueryParameter> = {
  limit: { description: 'Page size, 1 to 100 (default 50).', schema: z.int().min(1).max(100) },
  startKey: textParameter('The startKey of the previous page.'),
};

export const anyJson = z.unknown().describe('Any JSON (or raw text), read by the ticket as ${body}.');
export const ok = (description: string, schema: z.ZodType) => ({ status: 200, description, schema });
export const deleted = ok('Deleted.', deletedAnswer);
export const receipt = ok("The receipt, or the ticket's resp answer.", receiptAnswer);
