/**
 * Light and dark themes follow the system setting: styles.css defines the colours as CSS variables
 * under `prefers-color-scheme`, so there is nothing to switch at run time. Charts (canvas, which cannot
 * read CSS variables by themselves) take their colours from here.
 */
export function themeColor(variable: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(variable).trim();
}

/** Whether the system asks for the dark theme now. */
export const prefersDark = (): boolean => matchMedia('(prefers-color-scheme: dark)').matches;
