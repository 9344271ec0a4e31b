import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from '#shared/platform/errors.ts';
import { deriveKey } from '#shared/platform/master-key.ts';
import type { RequestLogQuery } from './query.ts';
import type { SortEntry } from './query-order.ts';

/**
 * The `cursor` of request search: the place of the last row of a page in the sort order (sort value,
 * start time, id: the order is total), the number of the page it ends, and a hash of the search it
 * belongs to (workspace, filter_group, q, sort, per_page). Signed with a key derived from the master key,
 * so a cursor altered in any way, or made by hand, is refused; one of another search is refused too,
 * by its hash. Opaque to clients: `<payload>.<signature>`, both base64url.
 */
const CURSOR_PURPOSE = 'request-search-cursor:v1';
const SIGNATURE_BYTES = 16;

export interface SearchCursor {
  /** The page the cursor's row ended. */
  page: number;
  after: SortEntry;
}

/** What binds a cursor to its search: the fields that decide which rows come in which order. */
export type CursorScope = Pick<RequestLogQuery, 'filter_group' | 'q' | 'sort_by' | 'sort_order'> & {
  per_page: number;
};

let signingKey: Promise<Buffer> | undefined;
const key = () => {
  signingKey ??= deriveKey(CURSOR_PURPOSE).catch((error: unknown) => {
    signingKey = undefined;
    throw error;
  });
  return signingKey;
};

const sign = async (payload: string) =>
  createHmac('sha256', await key())
    .update(payload, 'utf8')
    .digest()
    .subarray(0, SIGNATURE_BYTES);

export async function encodeCursor(workspaceId: number, scope: CursorScope, cursor: SearchCursor) {
  const { value, start, id } = cursor.after;
  const payload = Buffer.from(
    JSON.stringify({ p: cursor.page, a: [value, start, id], s: scopeHash(workspaceId, scope) }),
    'utf8',
  ).toString('base64url');
  return `${payload}.${(await sign(payload)).toString('base64url')}`;
}

/** The cursor's place, or a 400 `invalid_cursor` saying why it cannot be used for this search. */
export async function decodeCursor(
  workspaceId: number,
  scope: CursorScope,
  cursor: string,
): Promise<SearchCursor> {
  const [payload, signature, ...rest] = cursor.split('.');
  const given = Buffer.from(signature ?? '', 'base64url');
  const expected = payload && rest.length === 0 ? await sign(payload) : undefined;
  if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalidCursor('cursor is not one this search returned (altered, truncated or made up)');
  }
  const { p, a, s } = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as {
    p: number;
    a: [number, number, number];
    s: string;
  };
  if (s !== scopeHash(workspaceId, scope)) {
    throw invalidCursor(
      'cursor belongs to another search (filter_group, q, sort_by, sort_order or per_page differ, or another workspace)',
    );
  }
  return { page: p, after: { value: a[0], start: a[1], id: a[2] } };
}

const invalidCursor = (why: string) =>
  badRequest(
    `Invalid cursor: ${why}. Send the same search again without cursor to start over.`,
    'invalid_cursor',
  );

function scopeHash(workspaceId: number, scope: CursorScope): string {
  const canonical = canonicalJson({
    workspace: workspaceId,
    filter_group: scope.filter_group ?? null,
    q: scope.q ?? null,
    sort_by: scope.sort_by ?? null,
    sort_order: scope.sort_order ?? null,
    per_page: scope.per_page,
  });
  return createHash('sha256').update(canonical, 'utf8').digest('base64url').slice(0, 22);
}

/** JSON with object keys sorted at every level: the same filter sent with its keys in another order binds the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
