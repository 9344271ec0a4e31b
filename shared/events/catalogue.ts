import * as z from '#shared/platform/zod.ts';

/**
 * Every event the service emits, with the schema of its `details` (PromptLayer's event names). A producer
 * names one of these types and its details are checked against the schema before anything is written,
 * so no event outside this list can reach the bus, a queue or a webhook. Details carry ids and the names
 * they belong to, never content. `docs/events.md` lists the same table for readers.
 */
const id = z.int();

const labelDetails = {
  prompt_id: id,
  prompt_name: z.string(),
  prompt_label_id: id,
  label: z.string(),
  prompt_version_id: id,
  version_number: id,
};

const isoTime = z.iso.datetime();

/** What both monitor events say: the monitor's question, the group, and the value that decided. */
const monitorDetails = {
  monitor_id: id,
  monitor_name: z.string(),
  /** cost, requests, error_rate, latency_p95 or tokens (shared/monitors/validation.ts). */
  metric: z.string(),
  /** gt, gte, lt or lte. */
  comparison: z.string(),
  threshold: z.number(),
  window_minutes: id,
  filter: z.nullable(z.object({ dimension: z.string(), value: z.string() })),
  group_by: z.nullable(z.string()),
  /** The group's value (e.g. the user id) with a group_by, else null. */
  group_value: z.nullable(z.string()),
  /** The metric over the window; null when there was nothing to measure (a rate without requests). */
  value: z.nullable(z.number()),
  window_start: isoTime,
  window_end: isoTime,
};

export const EVENT_CATALOGUE = {
  prompt_template_version_created: z.object({
    prompt_id: id,
    prompt_name: z.string(),
    prompt_version_id: id,
    version_number: id,
  }),
  prompt_template_label_created: z.object(labelDetails),
  prompt_template_label_moved: z.object({
    ...labelDetails,
    previous_prompt_version_id: id,
    previous_version_number: id,
  }),
  prompt_template_label_deleted: z.object(labelDetails),
  dataset_version_created_by_file: z.object({ dataset_id: id, dataset_version_number: id }),
  dataset_version_created_by_file_failed: z.object({ dataset_id: id, error_message: z.string() }),
  dataset_version_created_from_filter_params: z.object({
    dataset_id: id,
    rows_added: id,
    dataset_version_number: id,
  }),
  /** Not one of PromptLayer's events: without it a client would never learn that its job gave up. */
  dataset_version_created_from_filter_params_failed: z.object({
    dataset_id: id,
    error_message: z.string(),
  }),
  /** A workflow run reached a final state (PromptLayer calls workflows agents). */
  agent_run_finished: z.object({
    agent_name: z.string(),
    agent_id: id,
    agent_version_number: id,
    agent_execution_id: id,
    status: z.enum(['SUCCESS', 'FAILED']),
  }),
  /** An evaluation report's run filled every cell; its score was computed (null when there is none). */
  report_finished: z.object({
    report_id: id,
    report_name: z.string(),
    parent_report_id: z.nullable(id),
    dataset_id: id,
    status: z.literal('COMPLETED'),
    overall_score: z.nullable(z.number()),
    status_counts: z.object({ COMPLETED: id, FAILED: id }),
  }),
  /** A skill collection got a new version (its create included): the paths it added, modified and deleted. */
  skill_collection_files_changed: z.object({
    skill_collection_id: z.string(),
    skill_collection_name: z.string(),
    version_number: id,
    added: z.array(z.string()),
    modified: z.array(z.string()),
    deleted: z.array(z.string()),
  }),
  /**
   * A monitor's value crossed its threshold (for a group_by monitor: one group's value); not one of
   * PromptLayer's events (it has no monitors). See docs/monitors.md.
   */
  monitor_triggered: z.object({ ...monitorDetails, triggered_at: isoTime }),
  /** A triggered monitor (or group) no longer crosses its threshold. */
  monitor_resolved: z.object({ ...monitorDetails, triggered_at: z.nullable(isoTime), resolved_at: isoTime }),
  /** Sent by `POST /api/public/v2/webhooks/{id}/test` to that one webhook; never on the bus. */
  webhook_test: z.object({ webhook_id: id, message: z.string() }),
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;
export type EventDetails<T extends EventType> = z.infer<(typeof EVENT_CATALOGUE)[T]>;

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

/** What a webhook may subscribe to: every type that travels on the bus. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((type) => type !== 'webhook_test');

export const isEventType = (value: string): value is EventType => Object.hasOwn(EVENT_CATALOGUE, value);

/** One event as a producer hands it over: its type and details, checked against the catalogue. */
export type CatalogueEvent = { [T in EventType]: { type: T; details: EventDetails<T> } }[EventType];

/**
 * The body every consumer sees (a webhook's body, an EventBridge event's `detail` without `event_id`):
 * PromptLayer's envelope. `user_*` are null when the change was not made by a known user.
 */
export interface EventEnvelope {
  event_type: EventType;
  details: Record<string, unknown>;
  user_id: number | null;
  user_name: string | null;
  user_email: string | null;
  workspace_id: number;
  /** ISO 8601, when the change happened. */
  timestamp: string;
}
