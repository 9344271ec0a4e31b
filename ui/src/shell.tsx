import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { endSession, type Me, useSession } from './api/session.ts';
import { ErrorMessage, Loading } from './components/status.tsx';
import { lazyScreen } from './lib/lazy.ts';
import { setTimeZoneMode, useTimeZoneMode } from './lib/time.ts';
import { dashboardUrl, navigate, useLocation } from './lib/url-state.ts';
import { SavedViewsMenu } from './saved-views-menu.tsx';

/**
 * The screens, by the first segment of the path after /ui/: each is its own lazy chunk
 * (ui/src/screens/<name>/index.tsx, default export), loaded the first time it is shown.
 */
export const SCREENS = {
  requests: { title: 'Requests', load: lazyScreen(() => import('./screens/requests/index.tsx')) },
  traces: { title: 'Traces', load: lazyScreen(() => import('./screens/traces/index.tsx')) },
  prompts: { title: 'Prompts', load: lazyScreen(() => import('./screens/prompts/index.tsx')) },
  playground: { title: 'Playground', load: lazyScreen(() => import('./screens/playground/index.tsx')) },
  analytics: { title: 'Analytics', load: lazyScreen(() => import('./screens/analytics/index.tsx')) },
  datasets: { title: 'Datasets', load: lazyScreen(() => import('./screens/datasets/index.tsx')) },
  evaluations: { title: 'Evaluations', load: lazyScreen(() => import('./screens/evaluations/index.tsx')) },
  workflows: { title: 'Workflows', load: lazyScreen(() => import('./screens/workflows/index.tsx')) },
  library: { title: 'Library', load: lazyScreen(() => import('./screens/library/index.tsx')) },
  webhooks: { title: 'Webhooks', load: lazyScreen(() => import('./screens/webhooks/index.tsx')) },
  monitors: { title: 'Monitors', load: lazyScreen(() => import('./screens/monitors/index.tsx')) },
  settings: { title: 'Settings', load: lazyScreen(() => import('./screens/settings/index.tsx')) },
} as const;
export type ScreenName = keyof typeof SCREENS;
export const DEFAULT_SCREEN: ScreenName = 'requests';

const isScreen = (name: string): name is ScreenName => Object.hasOwn(SCREENS, name);

/** The signed-in dashboard: header (product, nav, time zone, sign-out) and the screen of the URL. */
export function Shell() {
  const { path } = useLocation();
  const screen = path.split('/')[0] ?? '';
  useEffect(() => {
    if (!isScreen(screen)) navigate(DEFAULT_SCREEN, { replace: true });
  }, [screen]);
  if (!isScreen(screen)) return null;
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header current={screen} />
      <main id="main">
        <Screen name={screen} />
      </main>
    </>
  );
}

function Header({ current }: { current: ScreenName }) {
  const me = useSession()?.me;
  const mode = useTimeZoneMode();
  return (
    <header class="app-header">
      <span class="product">promptops</span>
      <nav aria-label="Screens">
        <ul class="nav-list">
          {(Object.keys(SCREENS) as ScreenName[]).map((name) => (
            <li key={name}>
              <a
                href={dashboardUrl(name)}
                aria-current={name === current ? 'page' : undefined}
                onClick={(event) => {
                  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
                    return;
                  event.preventDefault();
                  navigate(name);
                }}
              >
                {SCREENS[name].title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="header-tools">
        <SavedViewsMenu />
        <button
          type="button"
          class="toggle"
          aria-pressed={mode === 'utc'}
          title="Show times in UTC or in this browser's time zone"
          onClick={() => setTimeZoneMode(mode === 'utc' ? 'local' : 'utc')}
        >
          {mode === 'utc' ? 'UTC' : 'Local time'}
        </button>
        {me && (
          <span class="who">
            <span class="muted">{me.workspace.name ?? `workspace ${me.workspace.id}`}</span>
            {isReadOnly(me) && <span class="badge">Read-only key</span>}
          </span>
        )}
        <button type="button" onClick={() => endSession()}>
          Sign out
        </button>
      </div>
    </header>
  );
}

/** A key that may edit nothing: the header says so (screens hide their edit actions). */
const isReadOnly = (me: Me) => !Object.values(me.permissions).includes('edit');

/** The screen's chunk, loaded on first show; the document title follows the screen. */
function Screen({ name }: { name: ScreenName }) {
  const [loaded, setLoaded] = useState<{ name: ScreenName; component: ComponentType } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    document.title = `${SCREENS[name].title} · promptops`;
    let current = true;
    setFailed(null);
    SCREENS[name].load().then(
      (component) => current && setLoaded({ name, component }),
      (error) => current && setFailed(String(error)),
    );
    return () => {
      current = false;
    };
  }, [name]);
  if (failed)
    return <ErrorMessage>This screen could not be loaded ({failed}). Reload the page.</ErrorMessage>;
  if (loaded?.name !== name) return <Loading />;
  const Component = loaded.component;
  return <Component />;
}
