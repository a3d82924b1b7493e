/** Sign-in with the owner key alone: GET /v1/owner names the project it opens. */
import { useState } from 'preact/hooks';
import { ApiError, OwnerApi, errorText } from '../api';
import type { Session } from '../session';

export function SignIn({ message, onSignedIn }: { message: string | null; onSignedIn(session: Session): void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const project = await OwnerApi.signIn(key.trim());
      onSignedIn({ owner_key: key.trim(), project });
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401 ? 'The service refused this owner key (401): check it; it may have been replaced.' : errorText(err),
      );
    } finally {
      setBusy(false);
    }
  };
  const shown = error ?? message;
  return (
    <main id="main" class="signin">
      <h1>Owner dashboard</h1>
      <form id="signin" onSubmit={submit}>
        <div class="field">
          <label for="owner-key">Owner key</label>
          <input
            id="owner-key"
            name="owner_key"
            type="password"
            autocomplete="off"
            required
            value={key}
            aria-describedby="signin-hint"
            onInput={(e) => setKey(e.currentTarget.value)}
          />
          <small id="signin-hint" class="hint">
            The ok_… key handed out when the project was created. It stays in this tab only.
          </small>
        </div>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {shown && (
        <p id="signin-message" class={error ? 'status error' : 'status'} role="alert">
          {shown}
        </p>
      )}
    </main>
  );
}
