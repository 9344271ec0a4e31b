/**
 * f-string templates, as PromptLayer writes them: `{name}` is replaced by the variable `name`; `{{` and
 * `}}` are a literal brace. A placeholder is a word (letters, digits, underscore) between braces,
 * optionally followed by a `!conversion` or `:format` part, which is accepted and ignored (as the
 * PromptLayer SDK's own renderer does). Any other brace is plain text, so JSON in a prompt stays as it is.
 *
 * A placeholder whose variable the call does not give is left as it is and reported as missing.
 * Values: strings as they are, numbers and booleans as JSON writes them, null as nothing, lists and
 * objects as JSON.
 */
import type { RenderBudget } from './limits.ts';

export type Variables = Readonly<Record<string, unknown>>;

export interface Rendered {
  text: string;
  /** Variables the text names and the call did not give, in order of first use. */
  missing: string[];
}

const TOKENS = /\{\{|\}\}|\{(\w+)(?:[!:][^{}]*)?\}/g;

export function renderFString(text: string, variables: Variables, budget: RenderBudget): Rendered {
  const missing = new Set<string>();
  const parts: string[] = [];
  let last = 0;
  let length = 0;
  for (const match of text.matchAll(TOKENS)) {
    const name = match[1];
    let replacement: string;
    if (name === undefined) replacement = match[0] === '{{' ? '{' : '}';
    else if (Object.hasOwn(variables, name)) replacement = stringify(variables[name]);
    else {
      missing.add(name);
      replacement = match[0];
    }
    const before = text.slice(last, match.index);
    parts.push(before, replacement);
    length += before.length + replacement.length;
    // Checked as it grows: a short template repeating a long value must not build the whole text first.
    if (length > 0x10000) {
      budget.addOutput(length);
      length = 0;
    }
    last = match.index + match[0].length;
  }
  if (last === 0) {
    budget.addOutput(text.length);
    return { text, missing: [] };
  }
  const rest = text.slice(last);
  budget.addOutput(length + rest.length);
  parts.push(rest);
  return { text: parts.join(''), missing: [...missing] };
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}
