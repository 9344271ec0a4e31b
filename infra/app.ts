/**
 * The CDK app: `npx cdk synth|deploy -c stage=prod`. Optional context: `alarmEmail=ops@example.com`,
 * `requestSizeGuard=false` (no WAF web ACL), `deletionProtection=true|false`, `promptCacheTtlSeconds=10`,
 * `openaiBaseUrl=https://...`, `anthropicBaseUrl=https://...`, `providerTimeoutMs=60000`,
 * `dashboardOrigins=https://api.example.com,https://...` (the dashboard behind a custom domain).
 */
import { App, Tags, Validations } from 'aws-cdk-lib';
import { parsePromptCacheTtl } from '#shared/prompts/cache-settings.ts';
import { nagChecks } from './constructs/nag-checks.ts';
import { PromptopsStack } from './stack.ts';

const app = new App();

const stage = contextString('stage') ?? 'dev';
if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
  throw new Error(`Invalid stage "${stage}": lower-case letters, digits and dashes, starting with a letter`);
}

new PromptopsStack(app, `promptops-${stage}`, {
  stage,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  alarmEmail: contextString('alarmEmail'),
  requestSizeGuard: contextBoolean('requestSizeGuard'),
  deletionProtection: contextBoolean('deletionProtection'),
  promptCacheTtlSeconds: contextNumber('promptCacheTtlSeconds', parsePromptCacheTtl),
  openaiBaseUrl: contextString('openaiBaseUrl'),
  anthropicBaseUrl: contextString('anthropicBaseUrl'),
  providerTimeoutMs: contextNumber('providerTimeoutMs', (text) => Number(text)),
  dashboardOrigins: contextString('dashboardOrigins')
    ?.split(',')
    .map((origin) => origin.trim()),
});

// cdk-nag (AWS Solutions and Serverless packs): an unacknowledged finding fails the synth.
Validations.of(app).addPlugins(...nagChecks(app));

Tags.of(app).add('project', 'promptops');
Tags.of(app).add('stage', stage);

function contextString(key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  return value === undefined || value === null || value === '' ? undefined : String(value);
}

/** A number given as context (`-c key=10`), read by `parse`, which names the key when it refuses. */
function contextNumber(key: string, parse: (text: string, what: string) => number): number | undefined {
  const value = contextString(key);
  return value === undefined ? undefined : parse(value, `Context ${key}`);
}

/** `-c key=false` arrives as the string "false". */
function contextBoolean(key: string): boolean | undefined {
  const value = contextString(key);
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`Context ${key} must be true or false, got "${value}"`);
}
