import type { ComponentChildren } from 'preact';

/** An error to show in place of what failed to load (role=alert: screen readers announce it). */
export function ErrorMessage({ children }: { children: ComponentChildren }) {
  return (
    <p class="error" role="alert">
      {children}
    </p>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="muted" aria-live="polite">
      {what}…
    </p>
  );
}
