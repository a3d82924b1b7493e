/** The subject, HTML body and text body of a mail template or newsletter, with the placeholders they use. */
import { placeholdersOf } from '../logic/placeholders';
import type { MailContent } from '../settings-types';

/** `filledFrom` says where the placeholders' values come from (src/mail/compose.ts fills both kinds). */
export function MailContentFields({
  idPrefix,
  value,
  filledFrom,
  onChange,
}: {
  idPrefix: string;
  value: MailContent;
  filledFrom: string;
  onChange(next: MailContent): void;
}) {
  const names = placeholdersOf(value.subject, value.html, value.text);
  const hintId = `${idPrefix}-placeholders`;
  return (
    <>
      <div class="field">
        <label for={`${idPrefix}-subject`}>subject</label>
        <input
          id={`${idPrefix}-subject`}
          required
          maxLength={998}
          aria-describedby={hintId}
          value={value.subject}
          onInput={(e) => onChange({ ...value, subject: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for={`${idPrefix}-html`}>HTML body (values filled into it are HTML-escaped)</label>
        <textarea
          id={`${idPrefix}-html`}
          rows={6}
          aria-describedby={hintId}
          value={value.html}
          onInput={(e) => onChange({ ...value, html: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for={`${idPrefix}-text`}>text body</label>
        <textarea
          id={`${idPrefix}-text`}
          rows={4}
          aria-describedby={hintId}
          value={value.text}
          onInput={(e) => onChange({ ...value, text: e.currentTarget.value })}
        />
      </div>
      <p id={hintId} class="hint">
        {`Placeholders are written \${name} (letters, digits, _), ${filledFrom}; $\${name} writes a literal \${name}. `}
        {names.length ? (
          <>
            This text uses: <span class="placeholders">{names.join(', ')}</span>.
          </>
        ) : (
          'This text uses none.'
        )}
      </p>
    </>
  );
}
