import { AppError, invalid, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { PROMPT_LABEL_DIMENSION, parsePromptLabel, resolvePromptLabel } from './prompt-label.ts';
import {
  deleteMonitor,
  getMonitor,
  listMonitors,
  type MonitorChanges,
  type MonitorRecord,
  putMonitor,
  readStatesAndSummary,
  releaseMonitorPlace,
  reserveMonitorPlace,
  updateMonitor,
} from './repository.ts';
import {
  type CreateMonitorInput,
  MAX_MONITORS_PER_WORKSPACE,
  monitorDefinitionIssue,
  type UpdateMonitorInput,
} from './validation.ts';
import { toMonitorStateView, toMonitorView } from './views.ts';

/** Registration: create, read, change and delete a workspace's monitors. */
export const monitorNotFound = () => notFound('Monitor not found');

async function requireMonitor(workspaceId: number, id: number): Promise<MonitorRecord> {
  const monitor = await getMonitor(workspaceId, id);
  if (!monitor) throw monitorNotFound();
  return monitor;
}

export async function createMonitor(workspaceId: number, input: CreateMonitorInput, now = Date.now()) {
  // A label that does not exist is a typo at creation; one deleted later pauses the monitor (evaluate.ts).
  if (
    input.filter?.dimension === PROMPT_LABEL_DIMENSION &&
    !(await resolvePromptLabel(workspaceId, input.filter.value))
  ) {
    const { promptName, label } = parsePromptLabel(input.filter.value) ?? {};
    throw invalid(['body', 'filter', 'value'], `no prompt template named ${promptName} has a label ${label}`);
  }
  const id = await nextId('monitor');
  if (!(await reserveMonitorPlace(workspaceId))) {
    throw new AppError(
      422,
      'monitor_limit_reached',
      `A workspace can have at most ${MAX_MONITORS_PER_WORKSPACE} monitors: delete one first`,
    );
  }
  const record: MonitorRecord = {
    id,
    workspaceId,
    name: input.name,
    metric: input.metric,
    filter: input.filter ?? null,
    groupBy: input.group_by ?? null,
    windowMinutes: input.window_minutes,
    threshold: input.threshold,
    comparison: input.comparison,
    cooldownMinutes: input.cooldown_minutes,
    isActive: input.is_active,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await putMonitor(record);
  } catch (error) {
    await releaseMonitorPlace(workspaceId);
    throw error;
  }
  return { success: true as const, monitor: toMonitorView(record) };
}

export async function listWorkspaceMonitors(workspaceId: number) {
  return { success: true as const, monitors: (await listMonitors(workspaceId)).map(toMonitorView) };
}

export async function getMonitorView(workspaceId: number, id: number) {
  return { success: true as const, monitor: toMonitorView(await requireMonitor(workspaceId, id)) };
}

/** What the evaluator knows of it: triggered or not, its last and recent values, recent transitions. */
export async function getMonitorState(workspaceId: number, id: number) {
  await requireMonitor(workspaceId, id);
  const { states, summary } = await readStatesAndSummary(workspaceId, id);
  return { success: true as const, state: toMonitorStateView(states.values(), summary) };
}

export async function changeMonitor(workspaceId: number, id: number, input: UpdateMonitorInput) {
  const current = await requireMonitor(workspaceId, id);
  const changes: MonitorChanges = {
    name: input.name,
    windowMinutes: input.window_minutes,
    threshold: input.threshold,
    comparison: input.comparison,
    cooldownMinutes: input.cooldown_minutes,
    isActive: input.is_active,
  };
  // A new threshold is checked against the metric it is for (an error rate above 1 never crosses).
  const issue = monitorDefinitionIssue({
    metric: current.metric,
    threshold: input.threshold ?? current.threshold,
  });
  if (issue) throw invalid(['body', issue.path], issue.message);
  const updated = await updateMonitor(workspaceId, id, changes);
  if (!updated) throw monitorNotFound();
  return { success: true as const, monitor: toMonitorView(updated) };
}

export async function removeMonitor(workspaceId: number, id: number) {
  if (!(await deleteMonitor(workspaceId, id))) throw monitorNotFound();
  return { success: true as const };
}
