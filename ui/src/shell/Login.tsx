/** Login page (the host was started with a password). */
import { useState } from 'preact/hooks';
import { ApiError, post } from '../api.ts';

export function Login({ onDone }: { onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await post('login', { password });
      onDone();
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'Wrong password.' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="login">
      <form class="form login-card" onSubmit={submit} data-testid="login">
        <h1>Lightnet</h1>
        <p class="muted">This host is protected by a password.</p>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoFocus
            autoComplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {error && (
          <p class="error-text" role="alert">
            {error}
          </p>
        )}
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy || !password}>
            Log in
          </button>
        </div>
      </form>
    </div>
  );
}
