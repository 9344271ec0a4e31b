/** `llm_kwargs` for Gemini generateContent. */
import type { JsonObject as Json } from '#shared/platform/json.ts';
import { unrenderable } from './blueprint.ts';
import {
  asList,
  builtInsFor,
  type Choice,
  type Conversation,
  compact,
  isSystem,
  mergeToolResults,
  obj,
  type Part,
  parseArguments,
  pickParams,
  responseFormat,
  type Turn,
  textOf,
} from './conversation.ts';

const GEMINI_GENERATION = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'thinkingConfig',
  'mediaResolution',
]);
const GEMINI_ALIASES = {
  max_tokens: 'maxOutputTokens',
  max_completion_tokens: 'maxOutputTokens',
  stop: 'stopSequences',
  n: 'candidateCount',
};
const GEMINI_BUILT_INS = new Map([
  ['web_search', 'googleSearch'],
  ['code_interpreter', 'codeExecution'],
  ['url_context', 'urlContext'],
  ['google_maps', 'googleMaps'],
]);
const GEMINI_MODES = { auto: 'AUTO', none: 'NONE', required: 'ANY' } as const;

export function toGemini(model: string, conversation: Conversation, params: Json): Json {
  const { turns, functions, builtIns, choice } = conversation;
  const systemParts = turns
    .filter(isSystem)
    .flatMap((turn) => turn.parts.flatMap((part) => geminiPart(part, 'system')));
  const callNames = new Map<string, string>();
  const contents = mergeToolResults(turns, (turn) => geminiParts(turn, callNames)).map(([role, parts]) => ({
    role: role === 'assistant' ? 'model' : 'user',
    parts,
  }));

  const config = pickParams(params, GEMINI_GENERATION, GEMINI_ALIASES, camelCase);
  if (config.stopSequences !== undefined) config.stopSequences = asList(config.stopSequences);
  const format = responseFormat(params.response_format);
  if (format) config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') config.responseJsonSchema = format.schema;

  const tools: Json[] = [];
  if (functions.length) {
    tools.push({
      functionDeclarations: functions.map((fn) =>
        // parametersJsonSchema takes JSON Schema as stored; `parameters` only an OpenAPI subset.
        compact({ name: fn.name, description: fn.description, parametersJsonSchema: fn.parameters }),
      ),
    });
  }
  for (const tool of builtInsFor(builtIns, 'google')) {
    const key = GEMINI_BUILT_INS.get(tool.type);
    if (key) tools.push({ [key]: tool.config ?? {} });
  }

  return compact({
    model,
    contents,
    systemInstruction: systemParts.length ? { parts: systemParts } : undefined,
    generationConfig: Object.keys(config).length ? config : undefined,
    tools: tools.length ? tools : undefined,
    toolConfig: functions.length && choice ? { functionCallingConfig: geminiChoice(choice) } : undefined,
  });
}

function geminiChoice(choice: Choice): Json {
  if (typeof choice === 'string') return { mode: GEMINI_MODES[choice] };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

function geminiParts(turn: Turn, callNames: Map<string, string>): Json[] {
  if (turn.role === 'tool') {
    const name = turn.name ?? callNames.get(turn.callId ?? '');
    if (!name) throw unrenderable(`tool message "${turn.callId}" answers no known tool call`);
    const text = textOf(turn.parts);
    // A structured response is passed as is; plain text goes under `output`, the key Gemini documents.
    return [{ functionResponse: { name, response: obj(tryParse(text)) ?? { output: text } } }];
  }
  for (const call of turn.calls) callNames.set(call.id, call.name);
  return [
    ...turn.parts.flatMap((part) => geminiPart(part, turn.role)),
    ...turn.calls.map((call) => ({ functionCall: { name: call.name, args: parseArguments(call) } })),
  ];
}

function geminiPart(part: Part, role: Turn['role']): Json[] {
  switch (part.kind) {
    case 'text':
      return [compact({ text: part.text, thoughtSignature: part.thoughtSignature })];
    case 'thinking':
      return [];
    case 'media':
      if (role !== 'user') return [];
      return part.data
        ? [{ inlineData: { mimeType: part.mime, data: part.data } }]
        : [{ fileData: { mimeType: part.mime, fileUri: part.url } }];
  }
}

const camelCase = (key: string) => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
