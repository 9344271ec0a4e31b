import * as z from '#shared/platform/zod.ts';
import type { NodeExecutor } from './types.ts';
import { jsonIfText, numberOf, readSource, sourceName } from './values.ts';

/**
 * ASSERT_VALID: whether the source is valid as `type` (a boolean; never a failure for the value itself):
 * - `object`: a JSON object or array, or a string holding one;
 * - `number`: a number, or a string holding one;
 * - `sql`: a light syntactic check, not a parser (see looksLikeSql).
 */
const config = z.object({
  source: sourceName,
  type: z.enum(['object', 'number', 'sql']),
});

export const assertValid: NodeExecutor<z.infer<typeof config>> = {
  config,
  async execute({ source, type }, context) {
    const value = readSource(context, source);
    switch (type) {
      case 'object': {
        const parsed = jsonIfText(value);
        return typeof parsed === 'object' && parsed !== null;
      }
      case 'number':
        return numberOf(value) !== undefined;
      case 'sql':
        return typeof value === 'string' && looksLikeSql(value);
    }
  },
};

const STATEMENT_KEYWORDS = new Set([
  'SELECT',
  'WITH',
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'UPSERT',
  'REPLACE',
  'CREATE',
  'ALTER',
  'DROP',
  'TRUNCATE',
  'EXPLAIN',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'VALUES',
  'GRANT',
  'REVOKE',
  'BEGIN',
  'START',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'USE',
  'SET',
  'CALL',
  'EXEC',
  'EXECUTE',
  'PRAGMA',
  'ANALYZE',
  'VACUUM',
  'TABLE',
]);

/**
 * A light syntactic check of SQL text: every statement (split on `;` outside quotes) starts with a SQL
 * statement keyword (SELECT, WITH, INSERT, UPDATE, DELETE, CREATE, ...; possibly after opening
 * parentheses), quotes ('...', "...", `...`) and block comments are closed, and parentheses balance.
 * It does not parse the grammar: "SELECT FROM WHERE" passes.
 */
export function looksLikeSql(text: string): boolean {
  const statements: string[] = [];
  let current = '';
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const next = text[i + 1];
    if (char === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      current += ' ';
    } else if (char === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) return false;
      i = end + 1;
      current += ' ';
    } else if (char === "'" || char === '"' || char === '`') {
      // A quote closes at the next one not doubled ('' inside '...').
      let j = i + 1;
      for (;;) {
        const close = text.indexOf(char, j);
        if (close === -1) return false;
        if (text[close + 1] === char) {
          j = close + 2;
          continue;
        }
        j = close;
        break;
      }
      current += 'x';
      i = j;
    } else if (char === ';') {
      if (depth !== 0) return false;
      statements.push(current);
      current = '';
    } else {
      if (char === '(') depth++;
      if (char === ')' && --depth < 0) return false;
      current += char;
    }
  }
  if (depth !== 0) return false;
  statements.push(current);
  const nonEmpty = statements.map((statement) => statement.trim()).filter((statement) => statement !== '');
  return (
    nonEmpty.length > 0 &&
    nonEmpty.every((statement) => {
      const word = /^\(*\s*([A-Za-z]+)/.exec(statement)?.[1];
      return word !== undefined && STATEMENT_KEYWORDS.has(word.toUpperCase());
    })
  );
}
