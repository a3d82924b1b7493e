/** The registry's plan for a save (POST …/plan): the change and the line diff of the stored forms. */
import type { ComponentChildren } from 'preact';
import { lineDiff, sortedJson } from '../logic/line-diff';

export interface Plan {
  ticket_id: string;
  change: 'create' | 'update' | 'none';
  current: unknown;
  proposed: unknown;
}

const SIGN = { same: ' ', added: '+', removed: '-' } as const;

export function PlanView({ plan, children }: { plan: Plan; children?: ComponentChildren }) {
  const diff = lineDiff(plan.current ? sortedJson(plan.current) : '', sortedJson(plan.proposed));
  return (
    <section class="plan" aria-labelledby="plan-title">
      <h3 id="plan-title">
        Plan: <span id="plan-change">{plan.change}</span>
      </h3>
      <pre class="diff" tabIndex={0} aria-label="Changes the save makes">
        {diff.map((line, i) => (
          <span key={i} class={`diff-${line.kind}`}>
            {SIGN[line.kind]} {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
      {children}
    </section>
  );
}
