import { requirePermission } from '#shared/entities/permissions.ts';
import type { EventActor } from '#shared/events/emit.ts';
import type { AuthContext } from '#shared/platform/auth-context.ts';
import { badRequest } from '#shared/platform/errors.ts';
import { validate } from '#shared/platform/http.ts';
import type { PromptBlueprint } from './llm-kwargs/blueprint.ts';
import { readTemplate } from './lookup.ts';
import { type PublishView, publishPromptTemplate } from './publish.ts';
import { type PatchTemplateBody, publishBodySchema } from './schemas.ts';
import { hasToolReferences } from './tool-refs.ts';

type Json = Record<string, unknown>;

/**
 * PATCH /rest/prompt-templates/{identifier}: a new version made from a base version (`version`,
 * `label`, else the latest) with the body's changes, published as POST /rest/prompt-templates publishes
 * (snippets, tool references, labels, events; the template's tags and folder stay). A change that does
 * not fit the base (messages of a completion template, an index past the end, response_format given
 * twice, parameters without a model) is a 400, as PromptLayer documents; the patched template is then
 * validated as a publish body is (422).
 */
export async function patchPromptTemplate(
  auth: AuthContext,
  identifier: string,
  body: PatchTemplateBody,
  actor?: EventActor,
): Promise<PublishView> {
  const { head, version } = await readTemplate(auth.workspaceId, identifier, {
    version: body.version ?? undefined,
    label: body.label ?? undefined,
  });
  const template = structuredClone(version.prompt_template) as Json;
  const chat = template.type === 'chat';
  const only = (field: string, ok: boolean, kind: string) => {
    if (!ok) throw badRequest(`${field} applies to ${kind} templates only`, 'invalid_patch');
  };
  if (body.messages != null) {
    only('messages', chat, 'chat');
    template.messages = patchList(template.messages, body.messages, 'messages');
  }
  if (body.content != null) {
    only('content', !chat, 'completion');
    template.content = patchList(template.content, body.content, 'content');
  }
  for (const field of ['tools', 'functions'] as const) {
    const change = body[field];
    if (change === undefined) continue;
    only(field, chat, 'chat');
    if (change === null) delete template[field];
    else template[field] = patchList(template[field] ?? [], change, field);
  }
  for (const field of ['function_call', 'tool_choice'] as const) {
    const change = body[field];
    if (change === undefined) continue;
    only(field, chat, 'chat');
    if (change === null) delete template[field];
    else template[field] = change;
  }
  const metadata = patchModelParameters(structuredClone(version.metadata ?? null), body);

  const publish = validate(
    publishBodySchema,
    {
      // Tags and folder are the template's: a publish without tags would clear them.
      prompt_template: { prompt_name: head.name, tags: head.tags },
      prompt_version: { prompt_template: template, commit_message: body.commit_message, metadata },
      release_labels: body.release_labels,
    },
    'body',
  );
  if (hasToolReferences(publish.prompt_version.prompt_template as PromptBlueprint)) {
    requirePermission(auth, 'tool', 'read');
  }
  return publishPromptTemplate(auth.workspaceId, publish, actor);
}

/** An array replaces the list; an object replaces the items at its indexes (each within the list). */
function patchList(current: unknown, change: Json | unknown[], field: string): unknown[] {
  if (Array.isArray(change)) return change;
  const list = Array.isArray(current) ? [...current] : [];
  for (const [key, value] of Object.entries(change)) {
    const index = /^(0|[1-9]\d*)$/.test(key) ? Number(key) : Number.NaN;
    if (!(index < list.length)) {
      throw badRequest(
        `${field} index "${key}" is out of bounds: the base version has ${list.length} ${field}`,
        'invalid_patch',
      );
    }
    list[index] = value;
  }
  return list;
}

/** `model_parameters` merged into the model's parameters (shallow); `response_format` set or removed. */
function patchModelParameters(metadata: Json | null, body: PatchTemplateBody): Json | null {
  const { model_parameters: parameters, response_format: responseFormat } = body;
  if (parameters == null && responseFormat === undefined) return metadata;
  if (responseFormat !== undefined && parameters && 'response_format' in parameters) {
    throw badRequest('response_format is given twice: alone and inside model_parameters', 'invalid_patch');
  }
  const model = metadata?.model as Json | null | undefined;
  if (!metadata || !model) {
    throw badRequest('The base version has no model (metadata.model) to set parameters on', 'invalid_patch');
  }
  const merged: Json = { ...((model.parameters as Json | null | undefined) ?? {}), ...parameters };
  if (responseFormat === null) delete merged.response_format;
  else if (responseFormat !== undefined) merged.response_format = responseFormat;
  return { ...metadata, model: { ...model, parameters: merged } };
}
