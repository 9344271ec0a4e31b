import * as z from 'zod';
import { type NodeExecutor, NodeFailure } from './types.ts';

/** CONTRACT STUB (issue 9): LLM_ASSERTION, implemented by the providers part. */
export const llmAssertion: NodeExecutor<Record<string, unknown>> = {
  config: z.looseObject({}),
  async execute() {
    throw new NodeFailure('node type LLM_ASSERTION is not implemented yet');
  },
};
