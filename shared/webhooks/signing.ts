import { createHmac } from 'node:crypto';

/**
 * How a webhook body is written and signed. The body is serialised once, the way Python's
 * `json.dumps(payload, sort_keys=True)` writes it (keys sorted, separators `", "` and `": "`, non-ASCII
 * escaped as `\uXXXX`), so a PromptLayer-style verifier that re-serialises the parsed payload gets the
 * exact bytes that were signed.
 */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return asciiString(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('Not JSON: a non-finite number');
    return Number.isInteger(value) ? String(value) : JSON.stringify(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${asciiString(key)}: ${pythonJson(item)}`).join(', ')}}`;
  }
  throw new Error(`Not JSON: a ${typeof value}`);
}

/** JSON.stringify's escaping plus Python's ensure_ascii: everything outside printable ASCII as \uXXXX. */
function asciiString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export const SECRET_PREFIX = 'whsec_';

/** The secret as a receiver is given it: `whsec_` + base64 of the key bytes (Standard Webhooks). */
export const secretText = (key: Buffer) => SECRET_PREFIX + key.toString('base64');

/** Standard Webhooks `v1` signature: base64 HMAC-SHA256(key bytes, `${id}.${timestamp}.${body}`). */
export function standardSignature(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * PromptLayer's `X-PromptLayer-Signature`: hex HMAC-SHA256 of the body, keyed (as PromptLayer's own
 * verifier code does) with the secret text the receiver was given, `whsec_...` included.
 */
export function promptLayerSignature(key: Buffer, body: string): string {
  return createHmac('sha256', Buffer.from(secretText(key), 'utf8'))
    .update(body, 'utf8')
    .digest('hex');
}

export const USER_AGENT = 'promptops-webhooks/1';

/**
 * The headers of one attempt: ours, with the user's own headers underneath (they can never replace
 * ours; registration refuses such names anyway). `keys` holds the current key first and, during a
 * rotation, the previous one: both signatures go in `webhook-signature`.
 */
export function deliveryHeaders(input: {
  deliveryId: string;
  timestampSeconds: number;
  body: string;
  keys: readonly Buffer[];
  userHeaders?: Readonly<Record<string, string>>;
}): Record<string, string> {
  const [current] = input.keys;
  if (!current) throw new Error('No signing key');
  const ours: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': input.keys
      .map((key) => standardSignature(key, input.deliveryId, input.timestampSeconds, input.body))
      .join(' '),
    'x-promptlayer-signature': promptLayerSignature(current, input.body),
  };
  const headers: Record<string, string> = {};
  const reserved = new Set(Object.keys(ours));
  for (const [name, value] of Object.entries(input.userHeaders ?? {})) {
    if (!reserved.has(name.toLowerCase())) headers[name] = value;
  }
  return { ...headers, ...ours };
}
