/**
 * CONTRACT STUB (issue 9): implemented (and reshaped as needed) by the providers part: LLM calls for
 * PROMPT_TEMPLATE and LLM_ASSERTION nodes through OpenAI and Anthropic adapters, with the workspace's
 * provider keys or the deployment's, provider errors mapped to PROVIDER_* types, each call logged as a
 * request log.
 */
export interface LlmPort {
  complete(workspaceId: number, request: unknown): Promise<unknown>;
}

export const llmPort: LlmPort = {
  async complete() {
    throw new Error('not implemented');
  },
};
