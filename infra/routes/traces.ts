import type { RouteDef } from '../route-types.ts';

/** Tracing: spans as the SDK's exporter sends them, read back as a trace. */
export const TRACE_ROUTES: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/spans-bulk',
    handler: 'functions/http/spans-bulk.ts',
    table: 'write',
    // Span details over 8 KB, and request logs created from `log_request` over 300 KB, go to S3.
    bucket: 'write',
    // Up to 1,000 spans, each possibly with a request log to create: more memory buys more CPU.
    memoryMb: 1024,
    timeoutSeconds: 29,
  },
  {
    method: 'GET',
    path: '/api/public/v2/traces/{trace_id}',
    handler: 'functions/http/trace-get.ts',
    table: 'read',
    bucket: 'read',
    memoryMb: 1024,
    timeoutSeconds: 29,
  },
];
