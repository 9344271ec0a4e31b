import { api } from '../../api/client.ts';

/** What the Prompts screen reads and writes, typed after docs/openapi.json. */

export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  pages: number;
  total: number;
  has_next: boolean;
  has_prev: boolean;
}

export interface ModelConfig {
  provider: string;
  name: string;
  parameters?: Record<string, unknown> | null;
  [key: string]: unknown;
}

export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface Message {
  role: string;
  content?: ContentBlock[] | null;
  [key: string]: unknown;
}

export type Blueprint =
  | { type: 'chat'; messages: Message[]; [key: string]: unknown }
  | { type: 'completion'; content: ContentBlock[]; [key: string]: unknown };

/** An item of GET /prompt-templates. */
export interface TemplateListItem {
  id: number;
  prompt_name: string;
  version: number;
  tags: string[];
  folder_id: number | null;
  release_labels: string[];
  updated_at: string;
}

/** GET /prompt-templates/{identifier}?version=n (unresolved snippets: the stored text). */
export interface TemplateVersion {
  id: number;
  prompt_name: string;
  version: number;
  prompt_template: Blueprint;
  metadata: { model?: ModelConfig | null; [key: string]: unknown } | null;
  commit_message: string | null;
  tags: string[];
  created_at: string;
}

/** An item of GET /prompt-templates/{identifier}/versions. */
export interface VersionSummary {
  id: number;
  version_number: number;
  commit_message: string | null;
  created_at: string;
  release_labels: string[];
  model: { provider: string; name: string } | null;
  template_type: 'chat' | 'completion';
}

/** An item of GET /prompt-templates/{identifier}/labels. */
export interface Label {
  release_label: string;
  release_label_id: number;
  prompt_version_id: number;
  prompt_version_number: number;
}

const templatePath = (name: string) => `/prompt-templates/${encodeURIComponent(name)}`;

export const listTemplates = (query: { page: number; name: string }, signal: AbortSignal) =>
  api<Page<TemplateListItem>>('GET', '/prompt-templates', {
    query: { page: query.page, per_page: 25, name: query.name, sort_by: 'name', sort_order: 'asc' },
    signal,
  });

export const readVersion = (name: string, version: number | null, signal?: AbortSignal) =>
  api<TemplateVersion>('GET', templatePath(name), {
    query: { version: version ?? undefined, resolve_snippets: false },
    signal,
  });

export const listVersions = (name: string, page: number, signal: AbortSignal) =>
  api<Page<VersionSummary>>('GET', `${templatePath(name)}/versions`, {
    query: { page, per_page: 30 },
    signal,
  });

export const listLabels = (name: string, signal: AbortSignal) =>
  api<{ release_labels: Label[] }>('GET', `${templatePath(name)}/labels`, { signal }).then((answer) =>
    answer.release_labels.toSorted((a, b) => a.release_label.localeCompare(b.release_label)),
  );

export const createLabel = (promptId: number, name: string, versionNumber: number) =>
  api<unknown>('POST', `/prompts/${promptId}/label`, {
    body: { name, prompt_version_number: versionNumber },
  });

export const moveLabel = (labelId: number, versionNumber: number) =>
  api<unknown>('PATCH', `/prompt-labels/${labelId}`, { body: { prompt_version_number: versionNumber } });

export const deleteLabel = (labelId: number) => api<unknown>('DELETE', `/prompt-labels/${labelId}`);

/** A version's traffic over a window, from POST /api/public/v2/requests/analytics. */
export interface Traffic {
  requests: number;
  cost: number;
  /** Seconds. */
  p50: number;
  p95: number;
  errors: number;
  source: string;
  incomplete: boolean;
}

interface AnalyticsAnswer {
  source: string;
  incomplete_results: boolean;
  totalRequests: number;
  totalCost: number;
  latencyPercentiles: { p50: number; p95: number };
  stats: { statusCounts: Record<string, number> }[];
}

export const TRAFFIC_WINDOW_DAYS = 7;

export async function readTraffic(
  promptId: number,
  versionNumber: number,
  signal: AbortSignal,
  now = Date.now(),
): Promise<Traffic> {
  const from = new Date(now - TRAFFIC_WINDOW_DAYS * 86_400_000).toISOString();
  const answer = await api<AnalyticsAnswer>('POST', '/api/public/v2/requests/analytics', {
    body: {
      filter_group: {
        logic: 'AND',
        filters: [
          { field: 'request_start_time', operator: 'between', value: [from, new Date(now).toISOString()] },
          { field: 'prompt_id', operator: 'eq', value: promptId },
          { field: 'prompt_version_number', operator: 'eq', value: versionNumber },
        ],
      },
    },
    signal,
  });
  return {
    requests: answer.totalRequests,
    cost: answer.totalCost,
    p50: answer.latencyPercentiles.p50,
    p95: answer.latencyPercentiles.p95,
    errors: answer.stats.reduce((sum, bucket) => sum + (bucket.statusCounts.ERROR ?? 0), 0),
    source: answer.source,
    incomplete: answer.incomplete_results,
  };
}
