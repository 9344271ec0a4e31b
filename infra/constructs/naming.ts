/** Construct ids from table rows: `dataset-file-jobs` -> `DatasetFileJobs`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** `GET /api/public/v2/requests/{request_id}` -> `GetApiPublicV2RequestsRequestId`. */
export function routeId(method: string, path: string): string {
  return pascalCase(`${method.toLowerCase()} ${path}`);
}
