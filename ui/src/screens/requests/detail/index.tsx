import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../../../api/client.ts';
import { useCanEdit } from '../../../api/session.ts';
import { useApi } from '../../../api/use-api.ts';
import { ErrorMessage, Loading } from '../../../components/status.tsx';
import type { Filter } from '../../../lib/log-query.ts';
import { formatDuration, useFormatTime } from '../../../lib/time.ts';
import { dashboardUrl, navigate } from '../../../lib/url-state.ts';
import { FilterValue } from '../columns.tsx';
import { formatCost, formatCount } from '../format.ts';
import type { LogDetail } from '../types.ts';
import { Actions } from './actions.tsx';
import { Annotations } from './annotations.tsx';
import { ClippedText, Conversation, jsonText } from './content.tsx';

export interface RequestDetailProps {
  /** The request log's id (the URL's `sel`). */
  id: string;
  /** Click-to-filter from a detail field: adds the condition to the URL's query. */
  onFilter(filter: Filter): void;
  onClose(): void;
}

/** A link inside the dashboard: plain clicks stay in the app, middle-click opens a tab. */
export function AppLink({ path, children }: { path: string; children: ComponentChildren }) {
  return (
    <a
      href={dashboardUrl(path)}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(path);
      }}
    >
      {children}
    </a>
  );
}

/** The detail pane of one request log: conversation, fields, annotations and actions. */
export function RequestDetail({ id, onFilter, onClose }: RequestDetailProps) {
  const [version, setVersion] = useState(0);
  const [raw, setRaw] = useState(false);
  const canEdit = useCanEdit('request_logs');
  const log = useApi(
    (signal) => api<LogDetail>('GET', `/api/public/v2/requests/${encodeURIComponent(id)}`, { signal }),
    [id, version],
  );
  const data = log.data;
  return (
    <aside class="request-detail" aria-labelledby="detail-title">
      <header>
        <h2 id="detail-title">Request {id}</h2>
        <button type="button" aria-pressed={raw} onClick={() => setRaw(!raw)}>
          Raw JSON
        </button>
        <button type="button" onClick={onClose}>
          Close<span class="visually-hidden"> request {id}</span>
        </button>
      </header>
      {log.error ? (
        <ErrorMessage>{log.error}</ErrorMessage>
      ) : !data || String(data.id) !== id ? (
        <Loading />
      ) : raw ? (
        <ClippedText text={jsonText(data)} class="json-view" />
      ) : (
        <>
          <Fields log={data} onFilter={onFilter} />
          <Conversation blueprint={data.input} label="Input" />
          <Conversation blueprint={data.output} label="Output" />
          <Annotations
            log={data}
            canEdit={canEdit}
            onFilter={onFilter}
            onChanged={() => setVersion(version + 1)}
          />
          <h3>Parameters</h3>
          <ClippedText text={jsonText(data.parameters ?? {})} class="json-view" />
          <Actions log={data} />
          <AppLink path={`playground?request=${data.id}`}>Replay with changes</AppLink>
        </>
      )}
    </aside>
  );
}

function Fields({ log, onFilter }: { log: LogDetail; onFilter(filter: Filter): void }) {
  const formatTime = useFormatTime();
  const cost = log.cost;
  const usage = log.usage;
  return (
    <dl>
      <dt>Status</dt>
      <dd>
        <FilterValue
          filter={{ field: 'status', operator: 'is', value: log.status }}
          label={`status ${log.status}`}
          onFilter={onFilter}
        >
          <span class={`requests-status requests-status-${log.status.toLowerCase()}`}>{log.status}</span>
        </FilterValue>
        {log.error_type ? ` ${log.error_type}` : ''}
      </dd>
      {log.error_message && (
        <>
          <dt>Error</dt>
          <dd>{log.error_message}</dd>
        </>
      )}
      <dt>Model</dt>
      <dd>
        <FilterValue
          filter={{ field: 'engine', operator: 'is', value: log.model }}
          label={`model ${log.model}`}
          onFilter={onFilter}
        >
          {log.model}
        </FilterValue>{' '}
        (
        <FilterValue
          filter={{ field: 'provider_type', operator: 'is', value: log.provider }}
          label={`provider ${log.provider}`}
          onFilter={onFilter}
        >
          {log.provider}
        </FilterValue>
        )
      </dd>
      {log.prompt_id !== null && (
        <>
          <dt>Prompt</dt>
          <dd>
            {log.prompt_name ? (
              <AppLink
                path={`prompts/${encodeURIComponent(log.prompt_name)}${log.prompt_version_number ? `?version=${log.prompt_version_number}` : ''}`}
              >
                {log.prompt_name}
                {log.prompt_version_number ? ` version ${log.prompt_version_number}` : ''}
              </AppLink>
            ) : (
              `#${log.prompt_id}`
            )}{' '}
            <FilterValue
              filter={{ field: 'prompt_id', operator: 'eq', value: log.prompt_id }}
              label={`prompt ${log.prompt_name ?? log.prompt_id}`}
              onFilter={onFilter}
            >
              filter
            </FilterValue>
          </dd>
        </>
      )}
      {log.trace_id && (
        <>
          <dt>Trace</dt>
          <dd>
            <AppLink path={`traces?trace=${encodeURIComponent(log.trace_id)}`}>{log.trace_id}</AppLink>
          </dd>
        </>
      )}
      {log.replay_of != null && (
        <>
          <dt>Replay of</dt>
          <dd>
            <AppLink path={`requests?sel=${log.replay_of}`}>request {log.replay_of}</AppLink>
          </dd>
        </>
      )}
      {log.group_id != null && (
        <>
          <dt>Group</dt>
          <dd>
            <FilterValue
              filter={{ field: 'group_id', operator: 'eq', value: log.group_id }}
              label={`group ${log.group_id}`}
              onFilter={onFilter}
            >
              {log.group_id}
            </FilterValue>
          </dd>
        </>
      )}
      <dt>Started</dt>
      <dd>{formatTime(log.request_start_time, 'ms')}</dd>
      <dt>Latency</dt>
      <dd>{formatDuration(log.latency_ms)}</dd>
      <dt>Tokens</dt>
      <dd>
        {formatCount(log.input_tokens)} in / {formatCount(log.output_tokens)} out
        {usage &&
          (usage.cache_read_tokens || usage.cache_write_tokens || usage.reasoning_tokens
            ? ` (cache read ${formatCount(usage.cache_read_tokens)}, cache write ${formatCount(usage.cache_write_tokens)}, reasoning ${formatCount(usage.reasoning_tokens)})`
            : '')}
      </dd>
      <dt>Cost</dt>
      <dd>
        {formatCost(log.price)}
        {cost && (
          <span class="muted">
            {' '}
            input {formatCost(cost.input)}, cached input {formatCost(cost.cached_input)}, cache write{' '}
            {formatCost(cost.cache_write)}, output {formatCost(cost.output)}, reasoning{' '}
            {formatCost(cost.reasoning)}; {cost.source}
            {cost.priced_as ? ` as ${cost.priced_as}` : ''}
          </span>
        )}
      </dd>
    </dl>
  );
}
