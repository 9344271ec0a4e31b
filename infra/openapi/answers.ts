import * as z from 'zod';
import type { HttpHandler } from '#shared/platform/http.ts';

/**
 * Checks a success answer against the response schema its route declares (`responses` of httpRoute):
 * the end-to-end tests run every answer through this, so a schema that disagrees with what the service
 * really answers fails them. Returns what is wrong, or undefined.
 */
export function answerMismatch(handler: unknown, status: number, body: string | Buffer): string | undefined {
  if (status < 200 || status >= 300) return undefined;
  const definition = (handler as Partial<HttpHandler>).definition;
  if (!definition) return 'the handler has no httpRoute definition';
  // Bytes (a base64 answer the gateway decoded) are checked against the statuses that declare them.
  if (Buffer.isBuffer(body)) {
    if (definition.binaryResponses?.[status]) return undefined;
    const declared = Object.keys(definition.binaryResponses ?? {}).join(', ') || 'none';
    return `answered ${status} with bytes, which it does not declare in binaryResponses (declared: ${declared})`;
  }
  const schema = definition.responses?.[status];
  if (!schema) {
    const declared = Object.keys(definition.responses ?? {}).join(', ') || 'none';
    return `answered ${status}, which it does not declare in responses (declared: ${declared})`;
  }
  let parsed: unknown;
  try {
    // An empty body (a 204) is checked as undefined.
    parsed = body.length === 0 ? undefined : JSON.parse(body);
  } catch {
    return `answered ${status} with a body that is not JSON`;
  }
  const result = schema.safeParse(parsed);
  return result.success ? undefined : z.prettifyError(result.error);
}
