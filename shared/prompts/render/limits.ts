/**
 * The bounds of server-side rendering. A render that would pass one stops with a TemplateRenderError
 * (a 422 for the client) instead of running for long or filling memory: a template is client input.
 *
 * One budget covers every text block of a template, so many small blocks cannot add up past it.
 */

/** Characters the whole rendered template may hold (every text block together), and any one jinja2 value. */
export const MAX_RENDERED_CHARS = 2_000_000;
/** Items a jinja2 list may hold, and the longest `range()`. */
export const MAX_ITEMS = 100_000;
/** jinja2 evaluation steps: one per expression or statement evaluated, LOOP_ITEM_STEPS per item of each loop run. */
export const MAX_STEPS = 100_000;
/** What one loop item costs in steps: the interpreter sets up a scope and a `loop` object for each. */
export const LOOP_ITEM_STEPS = 4;
/**
 * jinja2 work, in characters and items: every value evaluated is charged its size (a string its length, a
 * list or mapping its item count), so touching a large value in a loop costs what it costs to copy it.
 */
export const MAX_WORK = 25_000_000;
/** How deeply jinja2 evaluation (macros calling macros, nested expressions) may nest. */
export const MAX_DEPTH = 400;
/**
 * Wall-clock time one render may take, checked at every step and every charge. The bounds above are
 * deterministic but price operations by the size of their result, not by their cost: sorting a 100,000
 * item list or `dictsort` on a large mapping, in a loop, stays under MAX_WORK for seconds. The clock is
 * the backstop, so no template holds a function for long; a legitimate template renders in milliseconds.
 */
export const MAX_RENDER_MS = 500;

/** A template that cannot be rendered: a syntax error, an error it raised, or a bound it passed. */
export class TemplateRenderError extends Error {
  /** True when a bound of this module stopped the render. */
  readonly overLimit: boolean;

  constructor(message: string, overLimit = false) {
    super(message);
    this.overLimit = overLimit;
    this.name = 'TemplateRenderError';
  }
}

export const overLimit = (what: string) =>
  new TemplateRenderError(`the template exceeds the rendering bounds: ${what}`, true);

/** What one render of a template has spent so far. */
export class RenderBudget {
  private readonly clock: () => number;
  chars = 0;
  steps = 0;
  work = 0;
  private readonly started: number;

  /** `clock` reads milliseconds (tests pass their own). */
  constructor(clock: () => number = () => performance.now()) {
    this.clock = clock;
    this.started = clock();
  }

  /** Counts the characters of a rendered text block against the template's total. */
  addOutput(length: number): void {
    this.chars += length;
    if (this.chars > MAX_RENDERED_CHARS) {
      throw overLimit(`more than ${MAX_RENDERED_CHARS.toLocaleString('en-US')} characters rendered`);
    }
  }

  /** One evaluation step, or `count` of them (a loop's items: each costs about what a step does). */
  step(count = 1): void {
    this.steps += count;
    if (this.steps > MAX_STEPS) {
      throw overLimit(`more than ${MAX_STEPS.toLocaleString('en-US')} evaluation steps (a loop too long?)`);
    }
    this.checkTime();
  }

  charge(size: number): void {
    this.work += size;
    if (this.work > MAX_WORK) {
      throw overLimit(
        `more than ${MAX_WORK.toLocaleString('en-US')} characters and items processed (large values in a loop?)`,
      );
    }
    this.checkTime();
  }

  private checkTime(): void {
    if (this.clock() - this.started > MAX_RENDER_MS) {
      throw overLimit(`rendering took more than ${MAX_RENDER_MS} ms (large values in a loop?)`);
    }
  }
}
