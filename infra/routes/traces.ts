import type { RouteDef } from '../route-types.ts';

/**
 * Tracing: spans as the SDK's exporter sends them and as any OpenTelemetry exporter sends them (OTLP/HTTP,
 * also at Langfuse's path), read back as a trace; the workspace's traces listed newest first.
 */
const OTLP_EXPORT = {
  method: 'POST',
  table: 'write',
  // Span details over 8 KB, and request logs over 300 KB, go to S3.
  bucket: 'write',
  // Up to 10,000 spans decoded, mapped and written in one call: more memory buys more CPU.
  memoryMb: 1024,
  timeoutSeconds: 29,
} as const;
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
  { ...OTLP_EXPORT, path: '/v1/traces', handler: 'functions/http/otlp-traces.ts' },
  {
    ...OTLP_EXPORT,
    path: '/api/public/otel/v1/traces',
    handler: 'functions/http/otlp-traces-langfuse.ts',
    auth: 'basic',
  },
  {
    method: 'GET',
    path: '/api/public/v2/traces',
    handler: 'functions/http/traces-list.ts',
    // One Query of the trace index (GSI1) a page.
    table: 'read',
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
  {
    method: 'GET',
    path: '/api/public/v2/traces/{trace_id}/mapping',
    handler: 'functions/http/trace-mapping.ts',
    table: 'read',
    bucket: 'read',
    memoryMb: 1024,
    timeoutSeconds: 29,
  },
  {
    method: 'POST',
    path: '/api/public/v2/traces/{trace_id}/close',
    handler: 'functions/http/trace-close.ts',
    table: 'write',
  },
];
