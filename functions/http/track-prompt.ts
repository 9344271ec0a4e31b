import { httpRoute } from '#shared/platform/http.ts';
import { trackPromptBodySchema, trackResponseSchema } from '#shared/request-logs/annotation-schemas.ts';
import { trackPrompt } from '#shared/request-logs/annotations.ts';

/** POST /rest/track-prompt: links a logged request to a prompt version. */
export const handler = httpRoute({
  body: trackPromptBodySchema,
  permission: ['request_logs', 'edit'],
  responses: { 200: trackResponseSchema },
  errors: [404, 409],
  handle: async ({ body, rawBody, auth }) => {
    // The variables as sent (validated as an object above): a parsed record drops a key named `__proto__`.
    const sent = (rawBody as { prompt_input_variables?: Record<string, unknown> | null })
      .prompt_input_variables;
    await trackPrompt(auth.workspaceId, body.request_id, { ...body, prompt_input_variables: sent ?? {} });
    return { success: true, message: 'Prompt tracked successfully' };
  },
});
