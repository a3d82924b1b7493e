import { structuredPatch } from 'diff';
import type { Colors } from '../output';
import { countSteps, type PlanStep } from './plan';

/** JSON with object keys sorted at every depth, two-space indented: equal values read the same. */
export function stableJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sorted(value), null, 2);
}

/** A line diff of two definitions: hunks with 3 lines of context, '-' current, '+' proposed. */
export function definitionDiff(current: unknown, proposed: unknown, color: Colors): string[] {
  const patch = structuredPatch('current', 'proposed', `${stableJson(current)}\n`, `${stableJson(proposed)}\n`, '', '', { context: 3 });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(color.cyan(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`));
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue;
      lines.push(line.startsWith('+') ? color.green(line) : line.startsWith('-') ? color.red(line) : line);
    }
  }
  return lines;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The plan for a person: a summary line, then one line per ticket and the diff of each change. */
export function renderPlan(steps: readonly PlanStep[], color: Colors): string[] {
  const counts = countSteps(steps);
  const lines = [
    `Plan: ${counts.create} to create, ${counts.update} to change, ${counts.none} unchanged${counts.delete ? `, ${counts.delete} to delete` : ''} (${plural(steps.length, 'ticket')}).`,
  ];
  const width = Math.max(0, ...steps.map((s) => s.ticket_id.length));
  for (const step of steps) {
    const id = step.ticket_id.padEnd(width);
    if (step.change === 'create') lines.push(color.green(`  + create     ${id}  ${step.file}`));
    else if (step.change === 'update') {
      lines.push(color.yellow(`  ~ change     ${id}  ${step.file}`));
      for (const line of definitionDiff(step.current, step.proposed, color)) lines.push(`      ${line}`);
    } else if (step.change === 'none') lines.push(color.dim(`  = unchanged  ${id}  ${step.file}`));
    else lines.push(color.red(`  - delete     ${id}  (no file)`));
  }
  return lines;
}
