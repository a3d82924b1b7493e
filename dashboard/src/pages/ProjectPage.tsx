/**
 * The project as its owner key may read it (GET /v1/owner). The identity issuer and the
 * secureRequest key and Destinations are the operator's settings (PATCH with the operator token):
 * the owner key neither reads nor changes them, so the page says so instead of offering a form.
 */
import { useEffect, useState } from 'preact/hooks';
import { errorText, type OwnerApi, type OwnerProject } from '../api';

export function ProjectPage({ api }: { api: OwnerApi }) {
  const [project, setProject] = useState<OwnerProject | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
      .call<OwnerProject>('GET', '/v1/owner')
      .then(setProject)
      .catch((err) => setError(errorText(err)));
  }, []);
  const rows: Array<[string, string]> = project
    ? [
        ['service id', project.service_id],
        ['owner id', project.owner_id],
        ['name', project.name],
        ['plan', project.plan ?? 'none'],
        ['active', project.active ? 'yes' : 'no (consumptions are refused)'],
      ]
    : [];
  return (
    <section aria-labelledby="project-title">
      <h2 id="project-title">Project</h2>
      {error && (
        <p id="project-status" class="status error" role="alert">
          {error}
        </p>
      )}
      {project ? (
        <dl id="project-identity" class="identity">
          {rows.map(([term, value]) => (
            <div key={term} data-field={term}>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      ) : (
        !error && <p class="hint">Reading…</p>
      )}
      <h3>Settings the operator changes</h3>
      <p id="operator-settings">
        The service's operator changes the project's settings (<code>PATCH /v1/projects/{'{service_id}'}</code> with the operator
        token): the plan and whether it is active, shown above, and the external identity issuer (issuer, audience, JWKS url) and the
        secureRequest key and its Destinations, which the owner key can neither read nor change and so are not shown here. To change
        any of them, ask the operator, giving the service id above.
      </p>
    </section>
  );
}
