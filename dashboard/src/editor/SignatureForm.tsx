/**
 * The signature part: a provider preset (schemas/signature-presets.ts) or custom fields, the Secret
 * Key to verify with, and the handshake the ticket answers. A token preset (GitLab, Postmark) is a
 * signature too (algorithm `token`: the Secret Key holds the token itself); each preset shows its docs
 * link, key format and handshake.
 */
import { useContext } from 'preact/hooks';
import { HANDSHAKES, HANDSHAKE_NOTES, SIGNATURE_PRESETS, presetSignature, type SignaturePreset } from '../../../schemas/signature-presets';
import { getAt } from '../logic/json-path';
import { sortedJson } from '../logic/line-diff';
import { EditorContext } from './context';
import { Field } from './Field';

const PATH = ['condition', 'signature'] as const;
const HANDSHAKE = ['condition', 'handshake'] as const;

/** The preset the signature is exactly (secretName aside), '' without a signature, or 'custom'. */
function presetOf(signature: Record<string, unknown> | undefined): string {
  if (!signature) return '';
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
      {`the Secret Key holds ${preset.secret}`}
      {preset.handshake ? ` · handshake: ${HANDSHAKE_NOTES[preset.handshake]}` : ''}
      {preset.note ? ` · ${preset.note}` : ''}
    </p>
  );
}

/** The picker's groups: signed providers, then token ones (the Secret Key holds the token), then handshake-only ones. */
const PRESET_GROUPS: ReadonlyArray<readonly [string, (p: SignaturePreset) => boolean]> = [
  ['Signed', (p) => p.signature !== undefined && p.signature.algorithm !== 'token'],
  ['Token (the Secret Key holds it)', (p) => p.signature?.algorithm === 'token'],
  ['Handshake only', (p) => p.signature === undefined],
];

const ALGORITHM_OPTIONS = [
  ['', '(sha256)'],
  ['sha256', 'sha256'],
  ['sha1', 'sha1'],
  ['sha512', 'sha512'],
  ['ed25519', 'ed25519 (public key)'],
  ['ecdsa-p256-sha256', 'ecdsa-p256-sha256 (public key)'],
  ['rsa-sha256', 'rsa-sha256 (public key)'],
  ['token', 'token (the header holds the Secret Key itself)'],
] as const;
/** raw is offered only with algorithm token: a signature is written in hex or base64. */
const ENCODING_OPTIONS = [
  ['', '(hex)'],
  ['hex', 'hex'],
  ['base64', 'base64'],
] as const;

export function SignatureForm() {
  const { def, set } = useContext(EditorContext);
  const signature = getAt(def, PATH) as Record<string, unknown> | undefined;
  const handshake = getAt(def, HANDSHAKE) as string | undefined;
  const chosen = presetOf(signature);
  const preset = SIGNATURE_PRESETS.find((p) => p.id === chosen);
  const pick = (id: string) => {
    const secretName = typeof signature?.secretName === 'string' ? signature.secretName : '';
    const next = SIGNATURE_PRESETS.find((p) => p.id === id);
    // The handshake follows the preset: a preset with one sets it, moving to another preset drops the previous one's.
    if (next?.handshake) set(HANDSHAKE, next.handshake);
    else if (preset?.handshake && handshake === preset.handshake) set(HANDSHAKE, undefined);
    if (id === '') return set(PATH, undefined);
    if (id === 'custom') return set(PATH, { ...(signature ?? { header: '' }) });
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
          {PRESET_GROUPS.map(([label, inGroup]) => (
            <optgroup label={label} key={label}>
              {SIGNATURE_PRESETS.filter(inGroup).map((p) => (
                <option value={p.id} key={p.id}>
                  {p.name}
                </option>
              ))}
            </optgroup>
          ))}
          <option value="custom">Custom</option>
        </select>
      </div>
      {preset && <PresetFacts preset={preset} />}
      {signature && (
        <>
          <Field
            path={[...PATH, 'secretName']}
            label="secretName (the Secret Key holding the secret)"
            hint={preset ? `It holds ${preset.secret}.` : undefined}
          />
          <details open={chosen === 'custom'}>
            <summary>Signature fields{preset ? ` (set by the ${preset.name} preset)` : ''}</summary>
            <Field path={[...PATH, 'header']} label="header" />
            <Field path={[...PATH, 'algorithm']} label="algorithm" kind="select" options={ALGORITHM_OPTIONS} />
            <Field
              path={[...PATH, 'encoding']}
              label="encoding"
              kind="select"
              options={signature.algorithm === 'token' ? [...ENCODING_OPTIONS, ['raw', 'raw (the token as sent)']] : ENCODING_OPTIONS}
            />
            <Field path={[...PATH, 'separator']} label="separator" />
            <Field path={[...PATH, 'parts']} label="parts" kind="json" hint='["t=${timestamp}", "v1=${signature}"]' />
            <Field path={[...PATH, 'signed']} label="signed" />
            <Field path={[...PATH, 'timestamp']} label="timestamp" />
            <Field path={[...PATH, 'tolerance']} label="tolerance (s)" kind="number" />
            <Field
              path={[...PATH, 'secret_encoding']}
              label="secret_encoding"
              kind="select"
              options={[
                ['', '(raw)'],
                ['raw', 'raw'],
                ['base64', 'base64'],
                ['hex', 'hex'],
              ]}
            />
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
