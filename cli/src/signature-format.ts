import type { SignatureTrace } from '../../schemas/signature';
import type { Colors } from './output';

/** The answer of POST .../log/{consume_id}/signature (src/openapi/answers.ts signatureDiagnosisAnswer). */
export interface SignatureDiagnosis {
  ticket_id: string;
  consume_id: string;
  received_at: number;
  url_kept: boolean;
  signature: {
    config: { header?: string; field?: string; algorithm?: string };
    verified: boolean;
    result: string;
    trace: SignatureTrace;
  } | null;
  presets: { secretName: string; matching: { id: string; name: string }[] };
}

/** The diagnosis as lines: the verdict, each step the check reached, then the presets that verify. */
export function formatSignatureDiagnosis(d: SignatureDiagnosis, color: Colors): string[] {
  const lines: string[] = [];
  const s = d.signature;
  if (!s) lines.push(color.dim(`${d.ticket_id} has no signature condition.`));
  else {
    lines.push(s.verified ? color.green('verified') : color.red(`not verified: ${s.result}`));
    const t = s.trace;
    if (t.source) {
      const what = t.source.field !== undefined ? `body field ${t.source.field}` : `header ${t.source.header}`;
      lines.push(`  read:       ${what}${t.source.found ? '' : color.red(' (not in the request)')}`);
    }
    if (t.items) lines.push(`  items:      ${t.items.map((i) => JSON.stringify(i)).join(' ')}`);
    if (t.captures && Object.keys(t.captures).length > 0)
      lines.push(
        `  captures:   ${Object.entries(t.captures)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(' ')}`,
      );
    if (t.signature_candidates !== undefined)
      lines.push(`  signatures: ${t.signature_candidates} found, decoded lengths [${(t.decoded_lengths ?? []).join(', ')}]`);
    if (t.body_sha256) lines.push(`  body hash:  ${!t.body_sha256.checked ? 'not given' : t.body_sha256.matches ? 'matches' : color.red('does not match')}`);
    if (t.timestamp) {
      const age = t.timestamp.age_seconds === undefined ? 'unreadable' : `${t.timestamp.age_seconds} s old at arrival`;
      lines.push(
        `  timestamp:  ${t.timestamp.value ?? '(none)'}, ${age}, tolerance ${t.timestamp.tolerance} s${t.timestamp.fresh ? '' : color.red(' (stale or missing)')}`,
      );
    }
    if (t.signed)
      lines.push(
        'missing_token' in t.signed
          ? `  signed:     ${color.red(`${t.signed.missing_token} has no value`)}`
          : `  signed:     ${t.signed.length} bytes, sha256 ${t.signed.sha256}`,
      );
    if (t.key) lines.push(`  key:        ${t.key === 'usable' ? 'usable' : color.red('unusable')}`);
  }
  if (!d.url_kept) lines.push(color.dim('  (this row kept no URL: a signature over ${url} cannot verify)'));
  const names = d.presets.matching.map((p) => `${p.id} (${p.name})`);
  lines.push(
    names.length
      ? `presets verifying with ${d.presets.secretName}: ${names.join(', ')}`
      : color.dim(`no preset verifies this request with ${d.presets.secretName}`),
  );
  return lines;
}
