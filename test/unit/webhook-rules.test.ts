import { describe, expect, it } from 'vitest';
import { SUBSCRIBABLE_EVENT_TYPES } from '#shared/events/catalogue.ts';
import { parseRetryAfter, RETRY_DELAYS_SECONDS, retryDelaySeconds } from '#shared/webhooks/backoff.ts';
import { WEBHOOK_QUEUE_SETTINGS } from '#shared/webhooks/queues.ts';
import { subscribesTo, type WebhookRecord } from '#shared/webhooks/repository.ts';
import { createWebhookSchema, isReservedHeader, updateWebhookSchema } from '#shared/webhooks/validation.ts';

/**
 * Registration rules (URL, event types, custom headers) and the retry schedule. The outbound client's
 * tests cover every spelling of a refused address; here, that registration goes through its check.
 */
const parse = (body: unknown) => createWebhookSchema.safeParse(body);
const messages = (body: unknown) => {
  const result = parse(body);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('webhook registration', () => {
  it('subscribes a webhook registered without event types to every type, later ones included', () => {
    const webhook = (eventTypes: WebhookRecord['eventTypes']) => ({ eventTypes }) as WebhookRecord;
    // A type the catalogue does not list today stands for one added later.
    const later = 'skill_collection_files_changed' as (typeof SUBSCRIBABLE_EVENT_TYPES)[number];
    expect(subscribesTo(webhook(null), later)).toBe(true);
    expect(subscribesTo(webhook(['dataset_version_created_by_file']), later)).toBe(false);
    expect(
      subscribesTo(webhook(['dataset_version_created_by_file']), 'dataset_version_created_by_file'),
    ).toBe(true);
    const back = updateWebhookSchema.safeParse({ event_types: null });
    expect(back.success && back.data.event_types).toBeNull();
  });

  it('defaults: active, every event type (given ones deduplicated)', () => {
    const result = parse({ url: 'https://example.com/hook' });
    expect(result.success && result.data).toMatchObject({ url: 'https://example.com/hook', is_active: true });
    const dedup = parse({
      url: 'https://example.com/hook',
      event_types: ['dataset_version_created_by_file', 'dataset_version_created_by_file'],
    });
    expect(dedup.success && dedup.data.event_types).toEqual(['dataset_version_created_by_file']);
    expect(SUBSCRIBABLE_EVENT_TYPES).not.toContain('webhook_test');
  });

  it('https only; http only for OUTBOUND_ALLOWED_HOSTS', () => {
    expect(messages({ url: 'http://example.com/hook' })[0]).toMatch(/must use https/);
    expect(messages({ url: 'ftp://example.com/hook' })).toHaveLength(1);
    expect(messages({ url: 'https://user:pw@example.com/hook' })).toHaveLength(1);
    expect(messages({ url: 'https://10.0.0.1/hook' })).toHaveLength(1);
    expect(messages({ url: 'https://localhost/hook' })).toHaveLength(1);
    process.env.OUTBOUND_ALLOWED_HOSTS = 'receiver.test:8080, other.test';
    try {
      expect(messages({ url: 'http://receiver.test:8080/hook' })).toEqual([]);
      expect(messages({ url: 'http://other.test/hook' })).toEqual([]);
      expect(messages({ url: 'http://receiver.test:9090/hook' })[0]).toMatch(/must use https/);
    } finally {
      delete process.env.OUTBOUND_ALLOWED_HOSTS;
    }
  });

  it('refuses unknown event types, an empty list and unknown fields', () => {
    expect(messages({ url: 'https://e.com', event_types: ['nope'] })).toHaveLength(1);
    expect(messages({ url: 'https://e.com', event_types: ['webhook_test'] })).toHaveLength(1);
    expect(messages({ url: 'https://e.com', event_types: [] })[0]).toMatch(/at least one/);
    expect(messages({ url: 'https://e.com', eventTypes: [] })).toHaveLength(1);
  });

  it('custom headers: token names, no CR/LF/NUL, none of ours, at most 20', () => {
    const url = 'https://example.com';
    expect(messages({ url, headers: { Authorization: 'Bearer abc', 'X-Team': 'a' } })).toEqual([]);
    for (const name of [
      'Content-Type',
      'host',
      'Webhook-Signature',
      'x-promptlayer-signature',
      'User-Agent',
    ]) {
      expect(messages({ url, headers: { [name]: 'x' } })[0], name).toMatch(/cannot be overridden/);
    }
    expect(messages({ url, headers: { 'Bad Name': 'x' } })[0]).toMatch(/not a valid header name/);
    expect(messages({ url, headers: { 'X-A': 'a\r\nX-B: b' } })[0]).toMatch(/CR, LF or NUL/);
    expect(messages({ url, headers: { 'X-A': 'a\0' } })[0]).toMatch(/CR, LF or NUL/);
    // Values the HTTP client would refuse at every attempt are refused at registration instead.
    expect(messages({ url, headers: { 'X-A': 'a\u0001' } })[0]).toMatch(/not a valid header value/);
    expect(messages({ url, headers: { 'X-A': '5 €' } })[0]).toMatch(/not a valid header value/);
    expect(messages({ url, headers: { 'X-A': 'tab\there, café' } })).toEqual([]);
    expect(messages({ url, headers: { 'x-a': '1', 'X-A': '2' } })[0]).toMatch(/twice/);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    expect(messages({ url, headers: many })[0]).toMatch(/at most 20/);
    expect(messages({ url, headers: { 'X-A': 'v'.repeat(3000) } })[0]).toMatch(/at most 2048/);
    expect(isReservedHeader('SVIX-ID')).toBe(true);
    expect(isReservedHeader('Authorization')).toBe(false);
  });

  it('an update names at least one field', () => {
    expect(updateWebhookSchema.safeParse({}).success).toBe(false);
    expect(updateWebhookSchema.safeParse({ is_active: false }).success).toBe(true);
  });
});

describe('retry schedule', () => {
  it('about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, each within ±10 %', () => {
    RETRY_DELAYS_SECONDS.forEach((base, index) => {
      const low = retryDelaySeconds(index + 1, undefined, 0, () => 0);
      const high = retryDelaySeconds(index + 1, undefined, 0, () => 0.999999);
      expect(low).toBeGreaterThanOrEqual(Math.floor(base * 0.9));
      expect(high).toBeLessThanOrEqual(Math.ceil(base * 1.1));
      if (base > 10) expect(high).toBeGreaterThan(low); // whole seconds: 5 s ± 10 % rounds to 5
    });
    expect(RETRY_DELAYS_SECONDS).toEqual([5, 300, 1800, 7200, 18000, 36000]);
  });

  it('Retry-After in seconds or as an HTTP date wins, capped within the 12 h SQS allows from the receive', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(retryDelaySeconds(1, '120', now)).toBe(120);
    expect(retryDelaySeconds(1, 'Mon, 01 Jan 2024 00:10:00 GMT', now)).toBe(600);
    // ChangeMessageVisibility is refused past 12 h from the receive, and the attempt took up to the
    // worker's timeout already.
    const longest = retryDelaySeconds(3, '999999', now);
    expect(longest + WEBHOOK_QUEUE_SETTINGS.delivery.timeoutSeconds).toBeLessThanOrEqual(12 * 3600);
    expect(longest).toBeGreaterThan(RETRY_DELAYS_SECONDS.at(-1)! * 1.1);
    expect(parseRetryAfter('Sun, 31 Dec 2023 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(retryDelaySeconds(1, 'garbage', now, () => 0.5)).toBe(5);
  });
});
