/** The template page's URL parameters, read defensively: a hand-edited URL never breaks the page. */

export function positiveInt(value: string | null): number | null {
  if (value === null || !/^\d{1,9}$/.test(value)) return null;
  const number = Number(value);
  return number >= 1 ? number : null;
}

/** `compare=3..5`: versions 3 and 5; anything else is no comparison. */
export function parseCompare(value: string | null): { a: number; b: number } | null {
  const match = /^(\d{1,9})\.\.(\d{1,9})$/.exec(value ?? '');
  if (!match) return null;
  const a = positiveInt(match[1] ?? null);
  const b = positiveInt(match[2] ?? null);
  return a && b ? { a, b } : null;
}
