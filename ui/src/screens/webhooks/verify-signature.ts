/**
 * The Standard Webhooks check, in the browser with WebCrypto (nothing is sent to the service):
 * `webhook-signature` holds space-separated `v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>`,
 * the secret is `whsec_` + base64 bytes, and the timestamp must be within 5 minutes of now.
 */
export const TOLERANCE_SECONDS = 5 * 60;

export interface SignatureInput {
  body: string;
  id: string;
  timestamp: string;
  signature: string;
  secret: string;
}

export type Verdict =
  | { ok: true; message: string }
  | { ok: false; reason: 'malformed' | 'timestamp' | 'signature'; message: string };

function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const chars = atob(text);
    const bytes = new Uint8Array(chars.length);
    for (let i = 0; i < chars.length; i++) bytes[i] = chars.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

function encodeBase64(bytes: ArrayBuffer): string {
  let text = '';
  for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte);
  return btoa(text);
}

export async function verifySignature(input: SignatureInput, nowMs = Date.now()): Promise<Verdict> {
  const id = input.id.trim();
  const timestampText = input.timestamp.trim();
  if (!id) return { ok: false, reason: 'malformed', message: 'Malformed: the webhook-id header is empty.' };
  if (!/^\d+$/.test(timestampText))
    return {
      ok: false,
      reason: 'malformed',
      message: 'Malformed: webhook-timestamp must be unix seconds (digits only).',
    };
  const secretText = input.secret.trim();
  const key = decodeBase64(secretText.startsWith('whsec_') ? secretText.slice(6) : secretText);
  if (!key || key.length === 0)
    return {
      ok: false,
      reason: 'malformed',
      message: 'Malformed: the secret is not whsec_ followed by base64.',
    };
  const given = input.signature
    .trim()
    .split(/\s+/)
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  if (given.length === 0)
    return {
      ok: false,
      reason: 'malformed',
      message: 'Malformed: webhook-signature has no "v1,<base64>" entry.',
    };
  const skew = Math.floor(nowMs / 1000) - Number(timestampText);
  if (skew > TOLERANCE_SECONDS)
    return {
      ok: false,
      reason: 'timestamp',
      message: `Timestamp too old: sent ${skew} s ago, more than ${TOLERANCE_SECONDS} s (a replay is refused).`,
    };
  if (skew < -TOLERANCE_SECONDS)
    return {
      ok: false,
      reason: 'timestamp',
      message: `Timestamp too new: ${-skew} s in the future, more than ${TOLERANCE_SECONDS} s.`,
    };
  const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const expected = encodeBase64(
    await crypto.subtle.sign(
      'HMAC',
      cryptoKey,
      new TextEncoder().encode(`${id}.${timestampText}.${input.body}`),
    ),
  );
  if (given.includes(expected))
    return { ok: true, message: 'Valid: the signature matches this body, id, timestamp and secret.' };
  return {
    ok: false,
    reason: 'signature',
    message:
      'Wrong signature: no v1 entry matches. The body must be the exact bytes received (not re-serialised JSON), with the secret of this endpoint.',
  };
}
