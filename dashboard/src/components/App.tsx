/**
 * The signed-in shell: navigation between the pages (a hash route, so a reload keeps the page) and
 * sign-in. Any 401 ends the session and returns to sign-in with the reason.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { OwnerApi } from '../api';
import { clearSession, loadSession, saveSession, type Session } from '../session';
import { EditorPage } from '../pages/EditorPage';
import { ForwardPage } from '../pages/ForwardPage';
import { LogsPage } from '../pages/LogsPage';
import { SecretsPage } from '../pages/SecretsPage';
import { TicketsPage } from '../pages/TicketsPage';
import { NewslettersPage } from '../pages/NewslettersPage';
import { ProjectPage } from '../pages/ProjectPage';
import { TemplatesPage } from '../pages/TemplatesPage';
import { SignIn } from './SignIn';

type Route =
  | { page: 'tickets' }
  | { page: 'new' }
  | { page: 'edit'; id: string }
  | { page: 'logs'; id: string }
  | { page: 'secrets' }
  | { page: 'forwarding' }
  | { page: SettingsPage };
/** The settings pages, each a hash route of its own name. */
const SETTINGS_PAGES = ['templates', 'newsletters', 'project'] as const;
type SettingsPage = (typeof SETTINGS_PAGES)[number];
const SETTINGS_LABELS: Record<SettingsPage, string> = { templates: 'Mail templates', newsletters: 'Newsletters', project: 'Project' };
const isSettingsPage = (name: string): name is SettingsPage => (SETTINGS_PAGES as readonly string[]).includes(name);

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'secrets') return { page: 'secrets' };
  if (parts[0] === 'forwarding') return { page: 'forwarding' };
  if (isSettingsPage(parts[0])) return { page: parts[0] };
  if (parts[0] === 'new') return { page: 'new' };
  if (parts[0] === 'tickets' && parts[1] && parts[2] === 'edit') return { page: 'edit', id: parts[1] };
  if (parts[0] === 'tickets' && parts[1] && parts[2] === 'logs') return { page: 'logs', id: parts[1] };
  return { page: 'tickets' };
}

const useHash = () => {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return hash;
};

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [signInMessage, setSignInMessage] = useState<string | null>(null);
  const hash = useHash();
  const route = parseRoute(hash);

  const api = useMemo(
    () =>
      session &&
      new OwnerApi(session.owner_key, session.project.service_id, () => {
        clearSession();
        setSession(null);
        setSignInMessage('The service no longer accepts this owner key (401): it may have been replaced. Sign in again.');
      }),
    // The same key and project keep the same api (a renamed project changes the session, not the api).
    [session?.owner_key, session?.project.service_id],
  );

  if (!session || !api) {
    return (
      <SignIn
        message={signInMessage}
        onSignedIn={(next) => {
          saveSession(next);
          setSignInMessage(null);
          setSession(next);
        }}
      />
    );
  }

  const signOut = () => {
    clearSession();
    setSession(null);
    setSignInMessage('Signed out.');
  };
  const current = route.page === 'secrets' || route.page === 'forwarding' || isSettingsPage(route.page) ? route.page : 'tickets';
  return (
    <>
      <header class="top">
        <h1>
          <span class="project">{session.project.name}</span> <small>owner dashboard</small>
        </h1>
        <nav aria-label="Pages">
          <a href="#/tickets" aria-current={current === 'tickets' ? 'page' : undefined}>
            Tickets
          </a>
          <a href="#/secrets" aria-current={current === 'secrets' ? 'page' : undefined}>
            Secrets
          </a>
          <a href="#/forwarding" aria-current={current === 'forwarding' ? 'page' : undefined}>
            Forwarding
          </a>
          {SETTINGS_PAGES.map((name) => (
            <a key={name} href={`#/${name}`} aria-current={current === name ? 'page' : undefined}>
              {SETTINGS_LABELS[name]}
            </a>
          ))}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </nav>
      </header>
      <main id="main">
        {route.page === 'tickets' && <TicketsPage api={api} />}
        {route.page === 'new' && <EditorPage key="new" api={api} ticketId={null} />}
        {route.page === 'edit' && <EditorPage key={`edit-${route.id}`} api={api} ticketId={route.id} />}
        {route.page === 'logs' && <LogsPage key={route.id} api={api} ticketId={route.id} />}
        {route.page === 'secrets' && <SecretsPage api={api} />}
        {route.page === 'forwarding' && <ForwardPage api={api} />}
        {route.page === 'templates' && <TemplatesPage api={api} />}
        {route.page === 'newsletters' && <NewslettersPage api={api} />}
        {route.page === 'project' && (
          <ProjectPage
            api={api}
            onSaved={(project) => {
              const next = { ...session, project };
              saveSession(next);
              setSession(next);
            }}
          />
        )}
      </main>
      <footer>
        <a href="/openapi.json">API reference (OpenAPI)</a>
      </footer>
    </>
  );
}
