import { ENV } from '#shared/platform/config.ts';

/**
 * The LLM providers nodes can call, with what the deployment configures for each: the environment
 * variables of its own key and base URL, and the provider's public base URL. Free of side effects.
 */
export const PROVIDERS = ['openai', 'anthropic'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export const isProviderName = (name: string): name is ProviderName =>
  (PROVIDERS as readonly string[]).includes(name);

export interface ProviderSettings {
  /** The deployment's key (environment variable name). */
  apiKeyEnv: string;
  /** The deployment's base URL (environment variable name); trusted operator configuration. */
  baseUrlEnv: string;
  /** The provider's own API, as its SDK defaults it. */
  defaultBaseUrl: string;
}

export const PROVIDER_SETTINGS: Readonly<Record<ProviderName, ProviderSettings>> = {
  openai: {
    apiKeyEnv: ENV.openaiApiKey,
    baseUrlEnv: ENV.openaiBaseUrl,
    defaultBaseUrl: 'https://api.openai.com/v1',
  },
  anthropic: {
    apiKeyEnv: ENV.anthropicApiKey,
    baseUrlEnv: ENV.anthropicBaseUrl,
    defaultBaseUrl: 'https://api.anthropic.com',
  },
};

/** Longest wait for one LLM call unless PROVIDER_TIMEOUT_MS says otherwise. */
export const DEFAULT_PROVIDER_TIMEOUT_MS = 120_000;

/**
 * What the deployment sets for its providers beside the keys (base URLs, timeout), with their defaults:
 * the environment a function that calls providers declares (its row's `environment`).
 */
export const PROVIDER_ENVIRONMENT: Readonly<Record<string, string>> = {
  [ENV.openaiBaseUrl]: PROVIDER_SETTINGS.openai.defaultBaseUrl,
  [ENV.anthropicBaseUrl]: PROVIDER_SETTINGS.anthropic.defaultBaseUrl,
  [ENV.providerTimeoutMs]: String(DEFAULT_PROVIDER_TIMEOUT_MS),
};

/**
 * Which provider serves a template's `metadata.model.provider`: only the providers' own names.
 * (`azure-openai`, Gemini and others take other credentials and endpoints: not supported by nodes.)
 */
export function providerOf(modelProvider: string | null | undefined): ProviderName | undefined {
  const name = modelProvider?.toLowerCase();
  return name !== undefined && isProviderName(name) ? name : undefined;
}
