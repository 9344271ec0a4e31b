import * as z from 'zod';
import { type NodeExecutor, NodeFailure } from './types.ts';

/** CONTRACT STUB (issue 9): PROMPT_TEMPLATE, implemented by the providers part. */
export const promptTemplate: NodeExecutor<Record<string, unknown>> = {
  config: z.looseObject({}),
  async execute() {
    throw new NodeFailure('node type PROMPT_TEMPLATE is not implemented yet');
  },
};
