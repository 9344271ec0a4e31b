import { DEFAULT_PROMPT_CACHE_TTL_SECONDS, PROMPT_CACHE_TTL_ENV } from '#shared/prompts/cache-settings.ts';
import type { RouteDef } from '../route-types.ts';

/**
 * The prompt template registry: versions, labels, snippets, external ids. Every path under
 * /prompt-templates/{...} names its parameter `identifier`: API Gateway allows one parameter name per
 * path level, so the external-id routes (a template id, `prompt_template_id` in PromptLayer's API) share it.
 */
export const PROMPT_ROUTES: readonly RouteDef[] = [
  {
    method: 'GET',
    path: '/prompt-templates',
    handler: 'functions/http/prompt-templates-list.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/prompt-templates/{identifier}',
    handler: 'functions/http/prompt-template-get.ts',
    table: 'read',
    // Publishes and label moves run in other functions: in AWS this TTL alone bounds how stale a read is.
    environment: { [PROMPT_CACHE_TTL_ENV]: String(DEFAULT_PROMPT_CACHE_TTL_SECONDS) },
  },
  {
    // The SDK's `templates.get`: the same read, rendered with the call's input variables.
    method: 'POST',
    path: '/prompt-templates/{identifier}',
    handler: 'functions/http/prompt-template-render.ts',
    table: 'read',
    environment: { [PROMPT_CACHE_TTL_ENV]: String(DEFAULT_PROMPT_CACHE_TTL_SECONDS) },
  },
  {
    method: 'POST',
    path: '/rest/prompt-templates',
    handler: 'functions/http/prompt-template-publish.ts',
    table: 'write',
    events: true,
  },
  {
    method: 'PATCH',
    path: '/rest/prompt-templates/{identifier}',
    handler: 'functions/http/prompt-template-patch.ts',
    table: 'write',
    events: true,
  },
  {
    method: 'PUT',
    path: '/prompt-templates/by-external-id/{source}/{external_id}',
    handler: 'functions/http/prompt-template-upsert-by-external-id.ts',
    table: 'write',
    events: true,
  },
  {
    method: 'GET',
    path: '/prompt-templates/{identifier}/snippet-usage',
    handler: 'functions/http/prompt-template-snippet-usage.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/prompt-templates/{identifier}/versions',
    handler: 'functions/http/prompt-template-versions.ts',
    table: 'read',
  },
  {
    method: 'GET',
    path: '/prompt-templates/{identifier}/labels',
    handler: 'functions/http/prompt-template-labels.ts',
    table: 'read',
  },
  {
    method: 'POST',
    path: '/prompts/{prompt_id}/label',
    handler: 'functions/http/prompt-label-create.ts',
    table: 'write',
    events: true,
  },
  {
    method: 'PATCH',
    path: '/prompt-labels/{prompt_label_id}',
    handler: 'functions/http/prompt-label-move.ts',
    table: 'write',
    events: true,
  },
  {
    method: 'DELETE',
    path: '/prompt-labels/{prompt_label_id}',
    handler: 'functions/http/prompt-label-delete.ts',
    table: 'write',
    events: true,
  },
  {
    method: 'POST',
    path: '/prompt-templates/{identifier}/external-ids',
    handler: 'functions/http/prompt-template-external-id-attach.ts',
    table: 'write',
  },
  {
    method: 'GET',
    path: '/prompt-templates/{identifier}/external-ids',
    handler: 'functions/http/prompt-template-external-ids-list.ts',
    table: 'read',
  },
  {
    method: 'DELETE',
    path: '/prompt-templates/{identifier}/external-ids/{source}/{external_id}',
    handler: 'functions/http/prompt-template-external-id-delete.ts',
    table: 'write',
  },
];
