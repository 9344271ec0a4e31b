/**
 * jinja2 templates, rendered with @huggingface/jinja: an interpreter of its own over its own value types
 * (strings, numbers, lists, mappings held in Maps), with no way from a template to a JavaScript object,
 * prototype or constructor (`''.__class__`, `range.constructor` are undefined; calling them is an error).
 *
 * Bounded (limits.ts): every evaluation is a step; every value evaluated is charged its size; a loop is
 * charged LOOP_ITEM_STEPS per item before it runs (so an empty loop body costs too); `range()` stops at MAX_ITEMS;
 * strings and lists are checked as they are made; the few operations that grow a value far in one step
 * (`indent`, `tojson(indent=...)`, `replace`, `join`) are checked before they run; evaluation nests at
 * most MAX_DEPTH deep. Functions print as `<function>`, never as their JavaScript source.
 *
 * Whitespace as Jinja's defaults (and PromptLayer) have it: no trim_blocks, no lstrip_blocks.
 * An undefined variable renders as nothing and is reported as missing, unless the template tests it
 * (`x is defined`, `x is undefined`, `x is none`) or gives it a default (`x | default(...)`). A loop over
 * it runs no iteration; an operation the interpreter refuses on it (`x | upper`, `x ~ 'a'`) makes the
 * block render again with it an empty string, as Jinja's lenient undefined would.
 */
import type { Environment, Interpreter } from '@huggingface/jinja';
import { onDemand } from '#shared/platform/on-demand.ts';
import { TtlCache } from '#shared/platform/ttl-cache.ts';
import type { Rendered, Variables } from './fstring.ts';
import {
  LOOP_ITEM_STEPS,
  MAX_DEPTH,
  MAX_ITEMS,
  MAX_RENDERED_CHARS,
  overLimit,
  type RenderBudget,
  TemplateRenderError,
} from './limits.ts';

/**
 * The library (46 KB minified) is imported on the first jinja2 template a container renders: it is
 * external to every bundle and copied beside the bundles that name it (ON_DEMAND_PACKAGES in
 * infra/bundling.ts), so a function that renders only f-strings, or no template, never loads it.
 */
export const JINJA_PACKAGE = '@huggingface/jinja';
type Jinja = typeof import('@huggingface/jinja');

export interface JinjaRenderer {
  /**
   * The environment a template's text blocks share: Jinja's globals (with a bounded `range`) and, in a
   * scope of their own, the call's variables (which may shadow a global, as in Jinja).
   */
  variables(variables: Variables, budget: RenderBudget): Environment;
  render(text: string, scope: Environment, budget: RenderBudget): Rendered;
}

export const loadJinja: () => Promise<JinjaRenderer> = onDemand(async () =>
  jinjaRenderer(await import('@huggingface/jinja')),
);

type Node = NonNullable<Parameters<Interpreter['evaluate']>[0]>;
type Value = ReturnType<Interpreter['evaluate']>;
type Program = Parameters<Interpreter['run']>[0];

/** A loose view of the AST nodes this module looks into. */
interface AnyNode {
  type: string;
  [field: string]: unknown;
}

/** Our own node, wrapped around a loop's iterable: charges the loop its items before it runs. */
const CHARGE_LOOP = 'PromptopsChargeLoop';

interface Compiled {
  program: Program;
  /** Identifier nodes a template guards (tested for definedness, or given a default). */
  guarded: WeakSet<object>;
}

// Parsed templates by text, oldest dropped first: rendering the same template again skips parsing.
const MAX_COMPILED = 512;
const MAX_COMPILED_TEXT = 64 * 1024;
const compiledByText = new TtlCache<Compiled>(Number.POSITIVE_INFINITY, MAX_COMPILED);

const QUIET_TESTS = new Set(['defined', 'undefined', 'none']);
const DEFAULT_FILTERS = new Set(['default', 'd']);

/**
 * One walk over the tree (iterative: a deep tree must not exhaust the stack here): wraps each loop's
 * iterable in a CHARGE_LOOP node, and notes the identifiers the template guards itself.
 */
function prepare(program: Program): WeakSet<object> {
  const guarded = new WeakSet<object>();
  const statementProto = Object.getPrototypeOf(Object.getPrototypeOf(program)) as object;
  const chargeLoop = (inner: unknown) =>
    // A Statement, so the library's own tree walks (macro argument analysis) still look inside.
    Object.assign(Object.create(statementProto) as object, { type: CHARGE_LOOP, inner });
  const stack: unknown[] = [program];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (node instanceof Map) {
      for (const [key, value] of node) stack.push(key, value);
      continue;
    }
    if (typeof node !== 'object' || node === null || typeof (node as AnyNode).type !== 'string') continue;
    const current = node as AnyNode;
    if (current.type === 'For') {
      const iterable = current.iterable as AnyNode;
      if (iterable.type === 'SelectExpression') iterable.lhs = chargeLoop(iterable.lhs);
      else current.iterable = chargeLoop(iterable);
    } else if (current.type === 'TestExpression') {
      const test = current.test as AnyNode;
      if (QUIET_TESTS.has(String(test.value))) guarded.add(current.operand as object);
    } else if (current.type === 'FilterExpression') {
      const filter = current.filter as AnyNode;
      const name = filter.type === 'CallExpression' ? (filter.callee as AnyNode).value : filter.value;
      if (DEFAULT_FILTERS.has(String(name))) guarded.add(current.operand as object);
    }
    for (const value of Object.values(current)) if (typeof value === 'object') stack.push(value);
  }
  return guarded;
}

function boundedRange(budget: RenderBudget, start: unknown, stop?: unknown, step: unknown = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (!Number.isInteger(from) || !Number.isInteger(to) || !Number.isInteger(step)) {
    throw new TemplateRenderError('range() takes integers');
  }
  const [first, end, by] = [from as number, to as number, step as number];
  if (by === 0) throw new TemplateRenderError('range() step must not be zero');
  const count = Math.max(0, Math.ceil((end - first) / by));
  if (count > MAX_ITEMS) throw overLimit(`range() of more than ${MAX_ITEMS.toLocaleString('en-US')} items`);
  budget.charge(count);
  return Array.from({ length: count }, (_, index) => first + index * by);
}

/** Renders again at most this many times with newly found missing variables defined (below). */
const MAX_LENIENT_RETRIES = 5;

/**
 * The renderer over the library's classes: the interpreter is subclassed, so it is made once the
 * library is loaded.
 */
function jinjaRenderer({ Environment, Interpreter, parse, tokenize }: Jinja): JinjaRenderer {
  function compile(text: string): Compiled {
    const hit = compiledByText.get(text);
    if (hit) return hit;
    let program: Program;
    try {
      program = parse(tokenize(text, { lstrip_blocks: false, trim_blocks: false }));
    } catch (error) {
      throw new TemplateRenderError(`jinja2 syntax error: ${describe(error)}`);
    }
    const compiled = { program, guarded: prepare(program) };
    if (text.length <= MAX_COMPILED_TEXT) compiledByText.set(text, compiled);
    return compiled;
  }

  function jinjaVariables(variables: Variables, budget: RenderBudget): Environment {
    const globals = new Environment();
    for (const [name, value] of [
      ['true', true],
      ['false', false],
      ['none', null],
      ['True', true],
      ['False', false],
      ['None', null],
    ] as const)
      globals.set(name, value);
    globals.set('range', (start: unknown, stop?: unknown, step?: unknown) =>
      boundedRange(budget, start, stop, step),
    );
    globals.set('raise_exception', (message: unknown) => {
      throw new TemplateRenderError(`the template raised an error: ${String(message)}`);
    });
    const scope = new Environment(globals);
    for (const [name, value] of Object.entries(variables)) scope.set(name, value);
    return scope;
  }

  function renderJinja(text: string, scope: Environment, budget: RenderBudget): Rendered {
    const { program, guarded } = compile(text);
    const missing = new Set<string>();
    let lenient = scope;
    let firstError: unknown;
    for (let attempt = 0; ; attempt++) {
      const interpreter = new BoundedInterpreter(new Environment(lenient), budget, guarded);
      try {
        const rendered = String(interpreter.run(program).value);
        for (const name of interpreter.missing) missing.add(name);
        budget.addOutput(rendered.length);
        return { text: rendered, missing: [...missing] };
      } catch (error) {
        if (error instanceof TemplateRenderError) throw error;
        firstError ??= error;
        // Jinja's undefined is lenient (PromptLayer's chainable: `x | upper`, `x ~ 'a'` render): a render
        // that failed on a variable the call lacks runs again with each such variable an empty string.
        const found = [...interpreter.missing].filter((name) => !missing.has(name));
        if (!found.length || attempt >= MAX_LENIENT_RETRIES) {
          // A stack overflow from a pathological template is one more template error, never a crash.
          throw new TemplateRenderError(`jinja2 error: ${describe(firstError)}`);
        }
        lenient = new Environment(lenient);
        for (const name of found) {
          missing.add(name);
          lenient.set(name, '');
        }
      }
    }
  }

  class BoundedInterpreter extends Interpreter {
    private readonly budget: RenderBudget;
    private readonly guarded: WeakSet<object>;
    readonly missing = new Set<string>();
    private depth = 0;

    constructor(env: Environment, budget: RenderBudget, guarded: WeakSet<object>) {
      super(env);
      this.budget = budget;
      this.guarded = guarded;
    }

    override evaluate(statement: Node | undefined, environment: Environment): Value {
      if (!statement) return super.evaluate(statement, environment);
      this.budget.step();
      if (++this.depth > MAX_DEPTH) throw overLimit(`evaluation nested more than ${MAX_DEPTH} deep`);
      try {
        const node = statement as unknown as AnyNode;
        if (node.type === CHARGE_LOOP) {
          const iterable = this.evaluate(node.inner as Node, environment);
          // As in Jinja, looping over an undefined variable or an empty string runs no iteration.
          if (
            iterable.type === 'UndefinedValue' ||
            (iterable.type === 'StringValue' && iterable.value === '')
          ) {
            return emptyList();
          }
          this.budget.step(sizeOf(iterable) * LOOP_ITEM_STEPS);
          return iterable;
        }
        if (node.type === 'FilterExpression' || node.type === 'CallExpression')
          this.checkGrowth(node, environment);
        const value = super.evaluate(statement, environment);
        if (node.type === 'Identifier' && value.type === 'UndefinedValue')
          this.noteMissing(node, environment);
        return this.checked(value);
      } finally {
        this.depth--;
      }
    }

    private noteMissing(node: AnyNode, environment: Environment): void {
      if (this.guarded.has(node)) return;
      const name = String(node.value);
      for (let scope: Environment | undefined = environment; scope; scope = scope.parent) {
        if (scope.variables.has(name)) return;
      }
      this.missing.add(name);
    }

    private checked(value: Value): Value {
      const size = sizeOf(value);
      if (value.type === 'StringValue' && size > MAX_RENDERED_CHARS) {
        throw overLimit(`a string of more than ${MAX_RENDERED_CHARS.toLocaleString('en-US')} characters`);
      }
      if ((value.type === 'ArrayValue' || value.type === 'TupleValue') && size > MAX_ITEMS) {
        throw overLimit(`a list of more than ${MAX_ITEMS.toLocaleString('en-US')} items`);
      }
      this.budget.charge(size);
      return value.type === 'FunctionValue' ? opaque(value) : value;
    }

    /**
     * The operations that can make a value far larger in one step are sized before they run: their
     * operand and arguments are evaluated once more for it (they are plain expressions).
     */
    private checkGrowth(node: AnyNode, environment: Environment): void {
      let name: unknown;
      let operand: AnyNode | undefined;
      let args: AnyNode[] = [];
      if (node.type === 'FilterExpression') {
        const filter = node.filter as AnyNode;
        if (filter.type !== 'CallExpression') return;
        name = (filter.callee as AnyNode).value;
        operand = node.operand as AnyNode;
        args = filter.args as AnyNode[];
      } else {
        const callee = node.callee as AnyNode;
        if (callee.type !== 'MemberExpression' || callee.computed) return;
        name = (callee.property as AnyNode).value;
        operand = callee.object as AnyNode;
        args = node.args as AnyNode[];
      }
      if (name !== 'indent' && name !== 'tojson' && name !== 'replace' && name !== 'join') return;
      if (node.type === 'CallExpression' && name !== 'replace') return;
      const subject = this.evaluate(operand as unknown as Node, environment);
      const positional: Value[] = [];
      const keywords = new Map<string, Value>();
      for (const arg of args) {
        if (arg.type === 'KeywordArgumentExpression') {
          keywords.set(String((arg.key as AnyNode).value), this.evaluate(arg.value as Node, environment));
        } else if (arg.type !== 'SpreadExpression' && arg.type !== 'KeywordSpreadExpression') {
          positional.push(this.evaluate(arg as unknown as Node, environment));
        }
      }
      const estimate = grownSize(String(name), subject, positional, keywords);
      if (estimate > MAX_RENDERED_CHARS) {
        throw overLimit(
          `${String(name)} would make a string of more than ${MAX_RENDERED_CHARS.toLocaleString('en-US')} characters`,
        );
      }
    }
  }

  const ArrayValue = new Environment().set('list', []).constructor as new (items: Value[]) => Value;
  const emptyList = () => new ArrayValue([]);

  return { variables: jinjaVariables, render: renderJinja };
}

/** An upper bound of the length of what `indent`, `tojson`, `replace` or `join` would return. */
function grownSize(name: string, subject: Value, args: Value[], kwargs: Map<string, Value>): number {
  const int = (value: Value | undefined, fallback: number) =>
    value?.type === 'IntegerValue' ? Math.abs(value.value as number) : fallback;
  const text = subject.type === 'StringValue' ? (subject.value as string) : '';
  switch (name) {
    case 'indent': {
      const width = int(args[0] ?? kwargs.get('width'), 4);
      return text.length + text.split('\n').length * width;
    }
    case 'tojson':
      return jsonSize(subject, int(kwargs.get('indent'), 0), MAX_RENDERED_CHARS + 1);
    case 'replace': {
      const [from, to] = args;
      if (from?.type !== 'StringValue' || to?.type !== 'StringValue') return text.length;
      const old = from.value as string;
      const occurrences = old === '' ? text.length + 1 : Math.floor(text.length / old.length);
      const count = args[2]?.type === 'IntegerValue' ? (args[2].value as number) : -1;
      const replaced = count >= 0 ? Math.min(count, occurrences) : occurrences;
      return text.length + replaced * Math.max(0, (to.value as string).length - old.length);
    }
    case 'join': {
      const separator = args[0] ?? kwargs.get('separator');
      const sepLength = separator?.type === 'StringValue' ? (separator.value as string).length : 0;
      if (subject.type === 'StringValue') return text.length * (1 + sepLength);
      const items = Array.isArray(subject.value) ? (subject.value as Value[]) : [];
      let total = items.length * sepLength;
      // A string joins as itself; anything else as its JavaScript string, never longer than this.
      for (const item of items) total += item.type === 'StringValue' ? sizeOf(item) : 32 + 16 * sizeOf(item);
      return total;
    }
    default:
      return 0;
  }
}

/** An upper bound of the length of a value as indented JSON; stops counting past `limit`. */
function jsonSize(root: Value, indent: number, limit: number): number {
  let total = 0;
  const stack: [Value, number][] = [[root, 1]];
  while (stack.length && total <= limit) {
    const [value, depth] = stack.pop()!;
    total += 8 + indent * depth;
    if (value.type === 'StringValue') total += 6 * (value.value as string).length;
    else if (Array.isArray(value.value))
      for (const item of value.value as Value[]) stack.push([item, depth + 1]);
    else if (value.value instanceof Map) {
      for (const [key, item] of value.value as Map<string, Value>) {
        total += 6 * key.length;
        stack.push([item, depth + 1]);
      }
    }
  }
  return total;
}

/** A string's length, a list's or mapping's item count; 1 for anything else. */
function sizeOf(value: Value): number {
  const inner = value.value as unknown;
  if (typeof inner === 'string' || Array.isArray(inner)) return inner.length;
  if (inner instanceof Map) return inner.size;
  return 1;
}

/** The same function, printed as `<function>` rather than as its JavaScript source. */
function opaque(value: Value): Value {
  const fn = value.value as (...args: unknown[]) => unknown;
  if ((fn as { opaque?: true }).opaque) return value;
  const call = (...args: unknown[]) => fn(...args);
  Object.defineProperties(call, { toString: { value: () => '<function>' }, opaque: { value: true } });
  const FunctionValue = value.constructor as new (fn: unknown) => Value;
  return new FunctionValue(call);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
