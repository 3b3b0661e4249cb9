import { useState } from 'preact/hooks';
import { call, fieldsOf, messageOf } from '../api.js';

export function SignInView() {
  const [server, setServer] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [register, setRegister] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});

  const clearErrors = () => {
    setError(null);
    setFields({});
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    clearErrors();
    const missing: Record<string, string> = {};
    if (!server.trim()) missing.server = 'Enter the address of your drive.';
    if (!email.trim()) missing.email = 'Enter your e-mail address.';
    if (!password) missing.password = 'Enter your password.';
    if (Object.keys(missing).length > 0) {
      setFields(missing);
      setError('Some fields need your attention.');
      return;
    }
    setBusy(true);
    try {
      await call('auth:sign-in', { server: server.trim(), email: email.trim(), password, register });
    } catch (e) {
      const text = messageOf(e);
      // A field's message that the summary says already is not said again under the field.
      const own = Object.fromEntries(Object.entries(fieldsOf(e)).filter(([, m]) => !text.includes(m)));
      setError(text);
      setFields(own);
    } finally {
      setBusy(false);
    }
  };

  const field = (id: 'server' | 'email' | 'password', label: string, value: string, set: (v: string) => void, type: string, autocomplete: string) => (
    <div class="field">
      <label for={`sign-in-${id}`}>{label}</label>
      <input
        id={`sign-in-${id}`}
        name={id}
        type={type}
        autocomplete={autocomplete}
        value={value}
        required
        aria-invalid={fields[id] ? 'true' : undefined}
        aria-describedby={fields[id] ? `sign-in-${id}-error` : undefined}
        onInput={(e) => {
          set((e.currentTarget as HTMLInputElement).value);
          if (fields[id]) setFields({ ...fields, [id]: '' });
        }}
      />
      {fields[id] ? (
        <p class="field-error" id={`sign-in-${id}-error`}>
          {fields[id]}
        </p>
      ) : null}
    </div>
  );

  return (
    <main class="sign-in">
      <form class="card" onSubmit={submit} aria-labelledby="sign-in-title" noValidate>
        <h1 id="sign-in-title">Sign in to your drive</h1>
        {error ? (
          <div class="error-summary" role="alert">
            <p>{error}</p>
            <button type="button" class="link-button" onClick={clearErrors}>
              Dismiss
            </button>
          </div>
        ) : null}
        {field('server', 'Server', server, setServer, 'url', 'url')}
        {field('email', 'E-mail', email, setEmail, 'email', 'username')}
        {field('password', 'Password', password, setPassword, 'password', register ? 'new-password' : 'current-password')}
        <div class="field checkbox">
          <input id="sign-in-register" type="checkbox" checked={register} onChange={(e) => setRegister((e.currentTarget as HTMLInputElement).checked)} />
          <label for="sign-in-register">Create a new account on this server</label>
        </div>
        <button type="submit" class="primary" disabled={busy} aria-busy={busy ? 'true' : undefined}>
          {busy ? 'Signing in…' : register ? 'Create account and sign in' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
