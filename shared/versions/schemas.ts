import type * as z from 'zod';
import { wellFormedString } from '#shared/platform/schemas.ts';

/** Request pieces every versioned entity kind shares. */

export const labelNameSchema = wellFormedString().min(1).max(255);
/** Each label moved writes a copy of the version (store.ts): bounded per publish. */
export const MAX_RELEASE_LABELS = 100;

/** A read selects a version by number or by label, never both. */
export function versionOrLabel(
  select: { version?: number | null; label?: string | null },
  ctx: z.RefinementCtx,
): void {
  if (select.version != null && select.label != null) {
    ctx.addIssue({ code: 'custom', path: ['label'], message: 'version and label are mutually exclusive' });
  }
}
