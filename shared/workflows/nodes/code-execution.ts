import * as z from 'zod';
import { type NodeExecutor, NodeFailure } from './types.ts';

/** CONTRACT STUB (issue 9): CODE_EXECUTION, implemented by the sandbox part. */
export const codeExecution: NodeExecutor<Record<string, unknown>> = {
  config: z.looseObject({}),
  async execute() {
    throw new NodeFailure('node type CODE_EXECUTION is not implemented yet');
  },
};
