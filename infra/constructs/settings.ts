import type { FunctionSettings } from '../route-types.ts';

/**
 * A row's function environment from its declared settings (`environment`: the defaults) and the
 * deployment's values (PromptopsStackProps, as `settings` by variable name): each deployment value
 * reaches only the rows that declare the setting. Undefined for a row that declares none.
 */
export function rowEnvironment(
  row: FunctionSettings,
  settings: Readonly<Record<string, string>> = {},
): Record<string, string> | undefined {
  const declared = row.environment;
  if (!declared) return undefined;
  return {
    ...declared,
    ...Object.fromEntries(Object.entries(settings).filter(([name]) => Object.hasOwn(declared, name))),
  };
}

/** Refuses, at synth, a deployment setting that no row (route, worker, schedule) declares. */
export function checkSettingsDeclared(
  settings: Readonly<Record<string, string>>,
  rows: readonly FunctionSettings[],
): void {
  for (const name of Object.keys(settings)) {
    if (!rows.some((row) => row.environment && Object.hasOwn(row.environment, name))) {
      throw new Error(`Setting ${name} is read by no function (no row declares it in environment)`);
    }
  }
}
