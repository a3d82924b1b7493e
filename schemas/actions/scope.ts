import type { ExistenceCheck } from '../lookups';
import type { TemplateContext } from '../references';

/** Where an action stands and what its validation collects. */
export interface ExeScope {
  /** Template context of the action's exe (${response} in a Then chain, ${error} in an err chain). */
  tpl: TemplateContext;
  /** Registration time, ms: literal times must be after it. */
  now: number;
  /** Names to look up in the project once the whole ticket is well formed. */
  checks: ExistenceCheck[];
}
