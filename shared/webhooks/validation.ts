import { validateHeaderValue } from 'node:http';
import { type EventType, SUBSCRIBABLE_EVENT_TYPES } from '#shared/events/catalogue.ts';
import { outboundUrl } from '#shared/platform/outbound-http.ts';
import * as z from '#shared/platform/zod.ts';

/** What a registration may hold. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_HEADERS = 20;
export const MAX_HEADER_VALUE_LENGTH = 2048;
/** Names and values of all custom headers together. */
export const MAX_HEADERS_BYTES = 8 * 1024;

/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Header names a webhook's custom headers may not use (case-insensitive): ours (content, signature and
 * identity headers), the ones the HTTP layer owns, and the Standard Webhooks / Svix families.
 */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'host',
  'user-agent',
  'x-promptlayer-signature',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);
const RESERVED_HEADER_PREFIXES = ['webhook-', 'svix-', 'proxy-'];

export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_HEADERS.has(lower) || RESERVED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** What the HTTP client will send: else every attempt would fail on it. */
function isValidHeaderValue(name: string, value: string): boolean {
  try {
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

const urlSchema = outboundUrl();

const eventTypesSchema = z.pipe(
  z
    .array(z.enum(SUBSCRIBABLE_EVENT_TYPES as [EventType, ...EventType[]]))
    .check(
      z.minLength(1, 'must name at least one event type (leave it out for all of them)'),
      z.maxLength(SUBSCRIBABLE_EVENT_TYPES.length * 2),
    ),
  z.transform((types) => [...new Set(types)]),
);

const headerRecord = z.record(z.string(), z.string()).check(
  z.superRefine((headers, ctx) => {
    const entries = Object.entries(headers);
    if (entries.length > MAX_HEADERS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_HEADERS} headers` });
      return;
    }
    const seen = new Set<string>();
    let bytes = 0;
    for (const [name, value] of entries) {
      bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (!HEADER_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' });
      } else if (isReservedHeader(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'is set by the service and cannot be overridden',
        });
      } else if (seen.has(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is given twice (header names ignore case)' });
      }
      seen.add(name.toLowerCase());
      if (/[\r\n\0]/.test(value)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'must not contain CR, LF or NUL' });
      } else if (!isValidHeaderValue(name, value)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'is not a valid header value (control characters, or characters beyond U+00FF)',
        });
      } else if (value.length > MAX_HEADER_VALUE_LENGTH) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `must be at most ${MAX_HEADER_VALUE_LENGTH} characters`,
        });
      }
    }
    if (bytes > MAX_HEADERS_BYTES) {
      ctx.addIssue({ code: 'custom', message: `headers must total at most ${MAX_HEADERS_BYTES} bytes` });
    }
  }),
);

/**
 * Custom headers of a request to a user's URL (webhooks, ENDPOINT nodes): valid names and values, none
 * the service sets itself, bounded in number and size.
 *
 * JSON.parse keeps a `"__proto__"` key as a plain property, but a record cannot hold it (zod drops it
 * rather than replace the prototype): refused here, before it vanishes from a create answered 201.
 */
export const headersSchema = z.pipe(
  z.transform((value, ctx) => {
    if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
      ctx.issues.push({
        code: 'custom',
        path: ['__proto__'],
        message: 'cannot be used as a header name',
        input: value,
      });
    }
    return value;
  }),
  headerRecord,
);

const descriptionSchema = z.nullable(z.string().check(z.maxLength(MAX_DESCRIPTION_LENGTH)));

export const createWebhookSchema = z.strictObject({
  url: urlSchema,
  event_types: z.optional(eventTypesSchema),
  description: z.optional(descriptionSchema),
  is_active: z._default(z.boolean(), true),
  headers: z.optional(headersSchema),
});
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const updateWebhookSchema = z
  .strictObject({
    url: z.optional(urlSchema),
    // null: every type, those the catalogue gains later included (as when left out at creation).
    event_types: z.optional(z.nullable(eventTypesSchema)),
    description: z.optional(descriptionSchema),
    is_active: z.optional(z.boolean()),
    headers: z.optional(headersSchema),
  })
  .check(
    z.refine((body) => Object.values(body).some((value) => value !== undefined), {
      message: 'name at least one of url, event_types, description, is_active, headers',
    }),
  );
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The body of the action routes (rotate-secret, test, retry): none, or an empty object. */
export const noBodySchema = z.strictObject({});
