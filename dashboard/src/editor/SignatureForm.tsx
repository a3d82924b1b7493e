/** The signature part: a provider preset (schemas/signature-presets.ts) or custom fields, and the Secret Key to verify with. */
import { useContext } from 'preact/hooks';
import { SIGNATURE_PRESETS, presetSignature } from '../../../schemas/signature-presets';
import { getAt } from '../logic/json-path';
import { sortedJson } from '../logic/line-diff';
import { EditorContext } from './context';
import { Field } from './Field';

const PATH = ['condition', 'signature'] as const;

/** The preset the signature is exactly (secretName aside), or 'custom'. */
function presetOf(signature: Record<string, unknown>): string {
  const { secretName: _name, ...rest } = signature;
  return SIGNATURE_PRESETS.find((preset) => sortedJson(preset.signature) === sortedJson(rest))?.id ?? 'custom';
}

export function SignatureForm() {
  const { def, set } = useContext(EditorContext);
  const signature = getAt(def, PATH) as Record<string, unknown> | undefined;
  const chosen = signature ? presetOf(signature) : '';
  const preset = SIGNATURE_PRESETS.find((p) => p.id === chosen);
  const pick = (id: string) => {
    const secretName = typeof signature?.secretName === 'string' ? signature.secretName : '';
    if (id === '') return set(PATH, undefined);
    const next: Record<string, unknown> = id === 'custom' ? { ...(signature ?? { header: '' }) } : { ...presetSignature(id, secretName) };
    if (!next.secretName) delete next.secretName;
    set(PATH, next);
  };
  return (
    <fieldset class="signature">
      <legend>signature</legend>
      <div class="field">
        <label for="signature-preset">Provider preset</label>
        <select id="signature-preset" value={chosen} onChange={(e) => pick(e.currentTarget.value)}>
          <option value="">(no signature check)</option>
          {SIGNATURE_PRESETS.map((p) => (
            <option value={p.id} key={p.id}>
              {p.name}
            </option>
          ))}
          <option value="custom">Custom</option>
        </select>
      </div>
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
    </fieldset>
  );
}
