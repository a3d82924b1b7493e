/**
 * The signature part: a provider preset (schemas/signature-presets.ts) or custom fields, the Secret
 * Key to verify with, and the handshake the ticket answers. A token preset (GitLab, Postmark) sets a
 * headers row instead of a signature; each preset shows its docs link, key format and handshake.
 */
import { useContext } from 'preact/hooks';
import { HANDSHAKES, HANDSHAKE_NOTES, SIGNATURE_PRESETS, presetSignature, type SignaturePreset } from '../../../schemas/signature-presets';
import { getAt } from '../logic/json-path';
import { sortedJson } from '../logic/line-diff';
import { EditorContext } from './context';
import { Field } from './Field';

const PATH = ['condition', 'signature'] as const;
const HEADERS = ['condition', 'headers'] as const;
const HANDSHAKE = ['condition', 'handshake'] as const;

type HeaderRow = { key?: unknown; operator?: unknown; value?: unknown };

/** The preset the signature is exactly (secretName aside), a token preset whose header row is there, or 'custom'. */
function presetOf(signature: Record<string, unknown> | undefined, headers: HeaderRow[]): string {
  if (!signature) {
    const token = SIGNATURE_PRESETS.find((p) => p.token && headers.some((row) => typeof row.key === 'string' && row.key.toLowerCase() === p.token!.header.toLowerCase()));
    return token?.id ?? '';
  }
  const { secretName: _name, ...rest } = signature;
  return SIGNATURE_PRESETS.find((preset) => preset.signature && sortedJson(preset.signature) === sortedJson(rest))?.id ?? 'custom';
}

function PresetFacts({ preset }: { preset: SignaturePreset }) {
  return (
    <p class="preset-facts" id="signature-preset-facts">
      <a href={preset.docs} target="_blank" rel="noopener noreferrer">
        {preset.name}: documentation
      </a>
      {' · '}
      {preset.token ? `${preset.token.header} must hold ${preset.secret}` : `the Secret Key holds ${preset.secret}`}
      {preset.handshake ? ` · handshake: ${HANDSHAKE_NOTES[preset.handshake]}` : ''}
      {preset.note ? ` · ${preset.note}` : ''}
    </p>
  );
}

export function SignatureForm() {
  const { def, set } = useContext(EditorContext);
  const signature = getAt(def, PATH) as Record<string, unknown> | undefined;
  const headers = (getAt(def, HEADERS) as HeaderRow[] | undefined) ?? [];
  const handshake = getAt(def, HANDSHAKE) as string | undefined;
  const chosen = presetOf(signature, headers);
  const preset = SIGNATURE_PRESETS.find((p) => p.id === chosen);
  const pick = (id: string) => {
    const secretName = typeof signature?.secretName === 'string' ? signature.secretName : '';
    const next = SIGNATURE_PRESETS.find((p) => p.id === id);
    // The handshake follows the preset: a preset with one sets it, moving to another preset drops the previous one's.
    if (next?.handshake) set(HANDSHAKE, next.handshake);
    else if (preset?.handshake && handshake === preset.handshake) set(HANDSHAKE, undefined);
    if (id === '') return set(PATH, undefined);
    if (id === 'custom') return set(PATH, { ...(signature ?? { header: '' }) });
    if (next?.token) {
      set(PATH, undefined);
      if (!headers.some((row) => row.key === next.token!.header)) set(HEADERS, [...headers, { key: next.token.header, operator: '=', value: '' }]);
      return;
    }
    if (!next?.signature) return set(PATH, undefined);
    const filled: Record<string, unknown> = { ...presetSignature(id, secretName) };
    if (!filled.secretName) delete filled.secretName;
    set(PATH, filled);
  };
  return (
    <fieldset class="signature">
      <legend>signature</legend>
      <div class="field">
        <label for="signature-preset">Provider preset</label>
        <select id="signature-preset" value={chosen} onChange={(e) => pick(e.currentTarget.value)}>
          <option value="">(no signature check)</option>
          <optgroup label="Signed (HMAC)">
            {SIGNATURE_PRESETS.filter((p) => p.signature).map((p) => (
              <option value={p.id} key={p.id}>
                {p.name}
              </option>
            ))}
          </optgroup>
          <optgroup label="Token or handshake only">
            {SIGNATURE_PRESETS.filter((p) => !p.signature).map((p) => (
              <option value={p.id} key={p.id}>
                {p.name}
              </option>
            ))}
          </optgroup>
          <option value="custom">Custom</option>
        </select>
      </div>
      {preset && <PresetFacts preset={preset} />}
      {signature && (
        <>
          <Field path={[...PATH, 'secretName']} label="secretName (the Secret Key holding the secret)" hint={preset ? `It holds ${preset.secret}.` : undefined} />
          <details open={chosen === 'custom'}>
            <summary>Signature fields{preset ? ` (set by the ${preset.name} preset)` : ''}</summary>
            <Field path={[...PATH, 'header']} label="header" />
            <Field path={[...PATH, 'algorithm']} label="algorithm" kind="select" options={[['', '(sha256)'], ['sha256', 'sha256'], ['sha1', 'sha1'], ['sha512', 'sha512'], ['ed25519', 'ed25519 (public key)'], ['ecdsa-p256-sha256', 'ecdsa-p256-sha256 (public key)'], ['rsa-sha256', 'rsa-sha256 (public key)']]} />
            <Field path={[...PATH, 'encoding']} label="encoding" kind="select" options={[['', '(hex)'], ['hex', 'hex'], ['base64', 'base64']]} />
            <Field path={[...PATH, 'separator']} label="separator" />
            <Field path={[...PATH, 'parts']} label="parts" kind="json" hint='["t=${timestamp}", "v1=${signature}"]' />
            <Field path={[...PATH, 'signed']} label="signed" />
            <Field path={[...PATH, 'timestamp']} label="timestamp" />
            <Field path={[...PATH, 'tolerance']} label="tolerance (s)" kind="number" />
            <Field path={[...PATH, 'secret_encoding']} label="secret_encoding" kind="select" options={[['', '(raw)'], ['raw', 'raw'], ['base64', 'base64'], ['hex', 'hex']]} />
            <Field path={[...PATH, 'secret_prefix']} label="secret_prefix" />
            <Field path={[...PATH, 'field']} label="field (extension: a body field carrying the signature, instead of header)" />
            <Field path={[...PATH, 'public_url']} label="public_url (extension: the URL the provider calls, behind a proxy or custom domain)" />
            <Field path={[...PATH, 'body_sha256']} label="body_sha256 (extension: must equal the body's hex SHA-256)" />
          </details>
        </>
      )}
      <Field
        path={HANDSHAKE}
        label="handshake (answered before the actions; an extension)"
        kind="select"
        options={[['', '(none)'], ...HANDSHAKES.map((h) => [h, h] as const)]}
        hint={handshake && Object.hasOwn(HANDSHAKE_NOTES, handshake) ? HANDSHAKE_NOTES[handshake as keyof typeof HANDSHAKE_NOTES] : undefined}
      />
    </fieldset>
  );
}
