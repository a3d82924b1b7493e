/**
 * Mail templates: the list, a form to create or replace one (subject, HTML and text bodies with
 * ${placeholders}), delete after a confirmation. Every text is shown as text.
 */
import { useEffect, useState } from 'preact/hooks';
import { errorText, type OwnerApi } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { MailContentFields } from '../components/MailContentFields';
import { when } from '../components/when';
import { placeholdersOf } from '../logic/placeholders';
import type { MailContent, MailTemplate } from '../settings-types';
import { StatusLine, type Status } from '../components/StatusLine';

const EMPTY_CONTENT: MailContent = { subject: '', html: '', text: '' };

export function TemplatesPage({ api }: { api: OwnerApi }) {
  const [list, setList] = useState<MailTemplate[]>([]);
  const [templateId, setTemplateId] = useState('');
  const [content, setContent] = useState(EMPTY_CONTENT);
  const [status, setStatus] = useState<Status>(null);
  const [deleting, setDeleting] = useState<string | null>(null);

  const load = () =>
    api
      .project<{ list: MailTemplate[] }>('GET', '/mail-templates')
      .then((answer) => setList(answer.list))
      .catch((err) => setStatus({ text: errorText(err), error: true }));
  useEffect(() => void load(), []);

  const edit = (template: MailTemplate) => {
    setTemplateId(template.template_id);
    setContent({ subject: template.subject, html: template.html, text: template.text });
    document.getElementById('template-id')?.focus();
  };
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api.project('PUT', `/mail-templates/${encodeURIComponent(templateId)}`, content);
      setStatus({ text: `Saved mail template ${templateId}.` });
      setTemplateId('');
      setContent(EMPTY_CONTENT);
      await load();
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };
  const remove = async (id: string) => {
    setDeleting(null);
    try {
      await api.project('DELETE', `/mail-templates/${encodeURIComponent(id)}`);
      setStatus({ text: `Deleted mail template ${id}.` });
      await load();
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };

  return (
    <section aria-labelledby="templates-title">
      <h2 id="templates-title">Mail templates</h2>
      <p class="hint">A ticket's mail action names a template and gives the values of its placeholders.</p>
      <div class="table-wrap">
        <table id="templates" class="cards">
          <thead>
            <tr>
              <th scope="col">template id</th>
              <th scope="col">subject</th>
              <th scope="col">placeholders</th>
              <th scope="col">updated</th>
              <th scope="col">
                <span class="visually-hidden">actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((template) => (
              <tr key={template.template_id} data-template={template.template_id}>
                <td data-label="template id">{template.template_id}</td>
                <td data-label="subject" class="subject">
                  {template.subject}
                </td>
                <td data-label="placeholders">{placeholdersOf(template.subject, template.html, template.text).join(', ') || 'none'}</td>
                <td data-label="updated">{when(template.updated)}</td>
                <td>
                  <button type="button" onClick={() => edit(template)} aria-label={`Edit ${template.template_id}`}>
                    Edit
                  </button>{' '}
                  <button type="button" onClick={() => setDeleting(template.template_id)} aria-label={`Delete ${template.template_id}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.length === 0 && <p class="hint">No mail templates yet.</p>}
      <form id="template-form" onSubmit={save}>
        <h3>Create or replace a mail template</h3>
        <div class="field">
          <label for="template-id">template id (1 to 64 letters, digits, _ or -)</label>
          <input id="template-id" required pattern="[A-Za-z0-9_-]{1,64}" value={templateId} onInput={(e) => setTemplateId(e.currentTarget.value)} />
        </div>
        <MailContentFields
          idPrefix="template"
          value={content}
          filledFrom="filled from the mail action's placeholders (${service_name} and ${email} always)"
          onChange={setContent}
        />
        <button type="submit">Save mail template</button>
      </form>
      <StatusLine id="templates-status" status={status} />
      {deleting && (
        <ConfirmDialog
          title={`Delete mail template ${deleting}?`}
          text="Tickets whose mail action names it fail until a template of that name is stored again."
          confirmLabel="Delete"
          onConfirm={() => remove(deleting)}
          onCancel={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
