import type { ComponentChildren } from 'preact';
import { dashboardUrl, navigate } from '../../lib/url-state.ts';

/** The dashboard path of a template's page, with an optional query (`version=3`). */
export const templatePath = (name: string, query = ''): string =>
  `prompts/${encodeURIComponent(name)}${query ? `?${query}` : ''}`;

/** A link inside the dashboard: a plain click navigates in the app, a middle click opens a tab. */
export function AppLink({
  to,
  children,
  current = false,
}: {
  to: string;
  children: ComponentChildren;
  /** This link's view is the one shown (aria-current). */
  current?: boolean;
}) {
  return (
    <a
      href={dashboardUrl(to)}
      aria-current={current ? 'true' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
