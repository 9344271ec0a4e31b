import { runEnvironment } from '#shared/env-vars/env-vars.ts';
import { outboundRequest } from '#shared/platform/outbound-http.ts';
import { llmPort } from '#shared/providers/port.ts';
import { sandboxPort } from '#shared/sandbox/sandbox.ts';
import type { NodePorts } from './types.ts';

/** The real ports, as the workflow node worker (and the report row worker) give them to executors. */
export const NODE_PORTS: NodePorts = {
  sandbox: sandboxPort,
  llm: llmPort,
  http: { request: outboundRequest },
  env: { workspaceEnvironment: (workspaceId) => runEnvironment(workspaceId) },
};
