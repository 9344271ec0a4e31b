import { randomUUID } from 'node:crypto';
import { EVENT_SOURCE } from '#shared/platform/events.ts';
import type { EventRuleDef } from '../routes.ts';
import { ACCOUNT, AwsError, entriesOf, MAX_BATCH_ENTRIES } from './aws-protocol.ts';

/**
 * EventBridge's PutEvents for the local runtime (served by messaging.ts): each event is kept (the tests
 * read them), told to `onEvent` (the service log prints it as one JSON line) and, through the bus
 * rules, delivered to their queues as the EventBridge event a rule target receives.
 */
export interface LocalEvent {
  /** The EventBridge event id given to this put (a rule's queue message carries it as `id`). */
  id: string;
  bus: string;
  source: string;
  detailType: string;
  detail: Record<string, unknown>;
}

export interface EventRouterOptions {
  /** Bus rules: events of the project source go to the rule's queue. */
  rules?: Readonly<Record<string, EventRuleDef>>;
  /** The bus the rules are on; events put on another bus are kept but match no rule. */
  busName?: string;
  /** Puts a message on a job queue (the SQS engine's). */
  enqueue(queue: string, body: string): void;
  onEvent?(event: LocalEvent): void;
}

/** Events kept for the tests, the newest this many. */
const KEPT_EVENTS = 10_000;

export class EventRouter {
  private readonly options: EventRouterOptions;
  readonly events: LocalEvent[] = [];
  private failingPutEvents = 0;

  constructor(options: EventRouterOptions) {
    this.options = options;
  }

  /**
   * The next `count` PutEvents entries fail (`InternalFailure`, as a bus outage answers): tests prove
   * an event survives a failure of the bus.
   */
  failPutEvents(count: number): void {
    this.failingPutEvents += count;
  }

  putEvents(input: Record<string, unknown>) {
    const entries = entriesOf(input);
    if (entries.length < 1 || entries.length > MAX_BATCH_ENTRIES) {
      throw new AwsError('ValidationException', `Entries must hold 1 to ${MAX_BATCH_ENTRIES} entries`);
    }
    let failed = 0;
    const results = entries.map((entry) => {
      if (this.failingPutEvents > 0) {
        this.failingPutEvents--;
        failed++;
        return { ErrorCode: 'InternalFailure', ErrorMessage: 'Injected bus failure (local test)' };
      }
      let detail: Record<string, unknown>;
      try {
        detail = JSON.parse(String(entry.Detail ?? '{}'));
      } catch {
        failed++;
        return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is not valid JSON' };
      }
      const event: LocalEvent = {
        id: randomUUID(),
        bus: String(entry.EventBusName ?? 'default'),
        source: String(entry.Source ?? ''),
        detailType: String(entry.DetailType ?? ''),
        detail,
      };
      this.events.push(event);
      if (this.events.length > KEPT_EVENTS) this.events.shift();
      this.options.onEvent?.(event);
      this.route(event, entry);
      return { EventId: event.id };
    });
    return { FailedEntryCount: failed, Entries: results };
  }

  /** Delivers an event to the queue of each rule it matches, as the SQS body a rule target writes. */
  private route(event: LocalEvent, entry: Record<string, unknown>): void {
    if (event.source !== EVENT_SOURCE) return;
    if (this.options.busName && busNameOf(event.bus) !== this.options.busName) return;
    for (const rule of Object.values(this.options.rules ?? {})) {
      if (rule.eventTypes && !(rule.eventTypes as readonly string[]).includes(event.detailType)) continue;
      const body = JSON.stringify({
        version: '0',
        id: event.id,
        'detail-type': event.detailType,
        source: event.source,
        account: ACCOUNT,
        time: eventTime(entry.Time),
        region: process.env.AWS_REGION ?? 'us-east-1',
        resources: Array.isArray(entry.Resources) ? entry.Resources : [],
        detail: event.detail,
      });
      this.options.enqueue(rule.queue, body);
    }
  }
}

/** A bus given by name or by ARN (`arn:aws:events:...:event-bus/<name>`). */
function busNameOf(bus: string): string {
  return bus.startsWith('arn:') ? (bus.split('/').pop() ?? bus) : bus;
}

/** EventBridge's `time`: the entry's own (epoch seconds in the JSON protocol) or now, to the second. */
function eventTime(time: unknown): string {
  const date = typeof time === 'number' ? new Date(time * 1000) : new Date();
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
