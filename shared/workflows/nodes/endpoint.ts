import * as z from 'zod';
import { type NodeExecutor, NodeFailure } from './types.ts';

/** CONTRACT STUB (issue 9): ENDPOINT, implemented by the providers part. */
export const endpoint: NodeExecutor<Record<string, unknown>> = {
  config: z.looseObject({}),
  async execute() {
    throw new NodeFailure('node type ENDPOINT is not implemented yet');
  },
};
