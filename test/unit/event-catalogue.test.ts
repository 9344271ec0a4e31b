import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBusMessage } from '#shared/events/bus-message.ts';
import { EVENT_CATALOGUE, EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '#shared/events/catalogue.ts';

describe('the event catalogue', () => {
  it('is what docs/events.md lists, row for row', () => {
    const doc = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
    const listed = [...doc.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);
    expect(listed).toEqual(EVENT_TYPES);
  });

  it('lets webhooks subscribe to every type but the test event', () => {
    expect(SUBSCRIBABLE_EVENT_TYPES).not.toContain('webhook_test');
    expect(SUBSCRIBABLE_EVENT_TYPES).toHaveLength(EVENT_TYPES.length - 1);
  });

  it('refuses details that do not match', () => {
    const schema = EVENT_CATALOGUE.dataset_version_created_by_file;
    expect(schema.safeParse({ dataset_id: 1, dataset_version_number: 2 }).success).toBe(true);
    expect(schema.safeParse({ dataset_id: '1', dataset_version_number: 2 }).success).toBe(false);
  });
});

describe('a bus message', () => {
  const detail = {
    event_id: 'ev_1',
    event_type: 'webhook_test',
    details: { webhook_id: 1, message: 'hi' },
    user_id: null,
    user_name: null,
    user_email: null,
    workspace_id: 3,
    timestamp: '2026-11-23T00:00:00.000Z',
  };
  const message = (over: object) =>
    JSON.stringify({
      version: '0',
      id: 'x',
      'detail-type': 'webhook_test',
      source: 'promptops',
      detail,
      ...over,
    });

  it('is read from the body EventBridge writes to a queue', () => {
    expect(parseBusMessage(message({}))).toEqual(detail);
  });

  it('refuses an event type outside the catalogue', () => {
    expect(() => parseBusMessage(message({ detail: { ...detail, event_type: 'nope' } }))).toThrow();
  });
});
