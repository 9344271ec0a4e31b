import { MESSAGE_ROLES } from '#shared/blueprints/schema.ts';
import { isJsonObject, type JsonObject } from '#shared/platform/json.ts';

/** Small pieces every provider conversion uses: JSON shape checks and prompt-blueprint parts. */
export type Json = JsonObject;
export const isObject = isJsonObject;

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export const asString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** A token count as the log stores it: a non-negative integer, else 0. */
export const tokenCount = (...values: unknown[]): number =>
  values.reduce<number>(
    (sum, value) =>
      sum + (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0),
    0,
  );

export const textBlock = (text: string) => ({ type: 'text', text });

/** Text as a block's text: strings as they are, anything else as its JSON. */
export const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/**
 * A content block as the blueprint keeps it: an object with a string `type` stays as it is (a text block
 * gets a string `text`); anything else becomes a text block of its JSON, so nothing is lost or refused.
 */
export function keepBlock(block: unknown): Json {
  if (typeof block === 'string') return textBlock(block);
  if (isObject(block) && typeof block.type === 'string' && block.type !== '') {
    return block.type === 'text' ? { ...block, text: asText(block.text) } : block;
  }
  return textBlock(asText(block));
}

type Role = (typeof MESSAGE_ROLES)[number];

/** A role the blueprint knows; anything else is taken as the user's. */
export const blueprintRole = (role: unknown): Role =>
  (MESSAGE_ROLES as readonly unknown[]).includes(role) ? (role as Role) : 'user';

/** A tool call as the blueprint (and OpenAI's chat API) spells it. */
export const toolCall = (id: unknown, name: unknown, args: unknown) => ({
  id: asString(id) ?? '',
  type: 'function',
  function: {
    name: asString(name) ?? '',
    arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
  },
});

export const chatBlueprint = (messages: Json[], extra: Json = {}): Json => ({
  type: 'chat',
  messages,
  ...extra,
});

/** Object fields other than the named ones (the request's parameters, without the conversation). */
export function without(object: Json, names: readonly string[]): Json {
  return Object.fromEntries(Object.entries(object).filter(([name]) => !names.includes(name)));
}

/** The request's tools, when it has any, for the input blueprint. */
export const toolsOf = (kwargs: Json): Json => {
  const tools = asArray(kwargs.tools).filter(isObject);
  return tools.length > 0 ? { tools } : {};
};
