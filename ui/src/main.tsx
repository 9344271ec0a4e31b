import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api/client.ts';
import { endSession, isRemembered, session, startSession, storedKey, useSession } from './api/session.ts';
import { Loading } from './components/status.tsx';
import { Shell } from './shell.tsx';
import { describeKey, SignIn } from './sign-in.tsx';
import './styles.css';

/** The dashboard's entry: checks a kept key, then shows sign-in or the shell. */
function App() {
  const signedIn = useSession() !== null;
  const [checking, setChecking] = useState(() => storedKey() !== null && session.get() === null);
  useEffect(() => {
    const key = storedKey();
    if (!key || session.get()) return;
    describeKey(key)
      .then(
        (me) => startSession(key, me, isRemembered(key)),
        (error) =>
          endSession(
            error instanceof ApiError && error.status === 401
              ? 'The saved key was refused: sign in again.'
              : null,
          ),
      )
      .finally(() => setChecking(false));
  }, []);
  if (checking) return <Loading what="Checking your key" />;
  return signedIn ? <Shell /> : <SignIn />;
}

const root = document.getElementById('app');
if (root) render(<App />, root);
