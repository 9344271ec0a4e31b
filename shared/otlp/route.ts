import { authenticateApiKey } from '#shared/auth/key-cache.ts';
import type { RouteAuth } from '#shared/platform/auth-context.ts';
import { type HttpHandler, HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { queryBoolean } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { decodeRequest, decompress, encodeResponse, encodingOf } from './decode.ts';
import { ingestOtlp } from './ingest.ts';

/** ExportTraceServiceResponse as JSON (PromptLayer's shape: `partialSuccess` null when nothing was refused). */
export const exportResponseSchema = z.object({
  partialSuccess: z.nullable(z.object({ rejectedSpans: z.int(), errorMessage: z.string() })),
});

/** The JSON form of a request, for the OpenAPI document (the route decodes bytes itself). */
const anyValue = z
  .looseObject({})
  .clone()
  .register(z.globalRegistry, { description: 'An OTLP AnyValue: {stringValue}, {intValue}, ...' });
const exportRequestSchema = z.object({
  resourceSpans: z.array(
    z.looseObject({
      resource: z.optional(
        z.looseObject({ attributes: z.array(z.object({ key: z.string(), value: anyValue })) }),
      ),
      scopeSpans: z.array(
        z.looseObject({
          scope: z.optional(z.looseObject({ name: z.string(), version: z.optional(z.string()) })),
          spans: z.array(
            z.looseObject({
              traceId: z.string().clone().register(z.globalRegistry, { description: '32 hex digits' }),
              spanId: z.string().clone().register(z.globalRegistry, { description: '16 hex digits' }),
              parentSpanId: z.optional(z.string()),
              name: z.string(),
              kind: z.optional(z.int()),
              startTimeUnixNano: z.string(),
              endTimeUnixNano: z.string(),
              attributes: z.optional(z.array(z.object({ key: z.string(), value: anyValue }))),
              status: z.optional(
                z.looseObject({ code: z.optional(z.int()), message: z.optional(z.string()) }),
              ),
            }),
          ),
        }),
      ),
    }),
  ),
});

/** The most messages of refused spans quoted in one answer (the count is always exact). */
const QUOTED_PROBLEMS = 5;

/**
 * POST /v1/traces and its Langfuse-compatible alias: the same route, authenticated by X-API-KEY (the
 * gateway's authorizer) or by `Authorization: Basic` (checked here).
 */
export function exportTracesRoute(auth: RouteAuth): HttpHandler {
  return httpRoute({
    auth,
    keyCheck: authenticateApiKey,
    query: z.object({ close_after: z.optional(queryBoolean) }),
    permission: ['request_logs', 'edit'],
    bytesBody: {
      contentTypes: ['application/x-protobuf', 'application/json'],
      documented: exportRequestSchema,
    },
    responses: { 200: exportResponseSchema },
    binaryResponses: { 200: 'application/x-protobuf' },
    errors: [409],
    handle: async ({ rawBody, headers, query, auth: caller }) => {
      const encoding = encodingOf(headers['content-type']);
      const request = decodeRequest(decompress(rawBody as Buffer, headers['content-encoding']), encoding);
      const result = await ingestOtlp(caller.workspaceId, request, {
        closeAfter: query.close_after === true,
      });
      const partial =
        result.problems.length > 0
          ? { rejectedSpans: result.rejected, errorMessage: summarizeProblems(result.problems) }
          : undefined;
      const body = encodeResponse(encoding, partial);
      return Buffer.isBuffer(body)
        ? new HttpResponse(200, body, { 'Content-Type': 'application/x-protobuf' })
        : new HttpResponse(200, body);
    },
  });
}

function summarizeProblems(problems: readonly string[]): string {
  const quoted = problems.slice(0, QUOTED_PROBLEMS).join('; ');
  return problems.length > QUOTED_PROBLEMS
    ? `${quoted}; and ${problems.length - QUOTED_PROBLEMS} more`
    : quoted;
}
