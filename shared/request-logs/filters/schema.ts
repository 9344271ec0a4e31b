import * as z from '#shared/platform/zod.ts';

export type FilterScalar = string | number | boolean | null;

/** One condition, e.g. `{field: 'cost', operator: 'gte', value: 0.1}`; `nested_key` for nested fields. */
export interface Filter {
  field: string;
  operator: string;
  value?: FilterScalar | FilterScalar[];
  nested_key?: string | null;
}

/** `logic` defaults to AND, as in PromptLayer's API. */
export interface FilterGroup {
  logic?: 'AND' | 'OR';
  filters: (Filter | FilterGroup)[];
}

/** Groups inside groups: the root group is depth 1. */
export const MAX_GROUP_DEPTH = 8;
/** Conditions in the whole tree. */
export const MAX_FILTERS = 200;
/** Items of an `in` / `not_in` list. */
export const MAX_LIST_ITEMS = 1000;

export const tooDeepMessage = `filter groups may nest at most ${MAX_GROUP_DEPTH} levels`;

export const isGroup = (item: Filter | FilterGroup): item is FilterGroup => 'filters' in item;

const ScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const FilterSchema = z.object({
  field: z.string(),
  operator: z.string(),
  value: z.optional(
    z.union([ScalarSchema, z.array(ScalarSchema)], {
      error: 'must be a string, number, boolean or null, or an array of them',
    }),
  ),
  nested_key: z.optional(z.nullable(z.string())),
});

/**
 * An item of `filters` is a group when it has `filters`, else a filter, decided by its shape rather than
 * by a union: a union that fails both ways says only "Invalid input", while this names what is wrong
 * (`filters.0.field: Field required`, `filters.0.value: Invalid input`).
 */
const ItemSchema: z.ZodMiniType<Filter | FilterGroup> = z.pipe(
  z.unknown(),
  z.transform((item, ctx) => {
    const schema = isGroupShape(item) ? GroupShapeSchema : FilterSchema;
    const result = schema.safeParse(item);
    if (result.success) return result.data;
    // Issues of the item's own schema, kept as they are: their paths continue from the item's.
    ctx.issues.push(...(result.error.issues as typeof ctx.issues));
    return z.NEVER;
  }),
);

const isGroupShape = (item: unknown) => typeof item === 'object' && item !== null && 'filters' in item;

const GroupShapeSchema: z.ZodMiniType<FilterGroup> = z.object({
  logic: z.optional(z.enum(['AND', 'OR'])),
  filters: z.array(z.lazy(() => ItemSchema)),
});

/** Depth of group nesting, measured without recursion and stopping once past the limit. */
function exceedsDepth(root: unknown): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== 'object' || node === null || !('filters' in node) || !Array.isArray(node.filters)) {
      continue;
    }
    if (depth > MAX_GROUP_DEPTH) return true;
    for (const child of node.filters) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The JSON shape of a filter group (structure only: fields, operators and values are checked by
 * compileFilter, which knows which pairs are valid). The depth is checked first so a hostile body
 * cannot exhaust the stack of the recursive parse.
 */
export const FilterGroupSchema: z.ZodMiniType<FilterGroup> = z.pipe(
  z.unknown().check((ctx) => {
    if (exceedsDepth(ctx.value))
      ctx.issues.push({ code: 'custom', message: tooDeepMessage, input: ctx.value });
  }),
  GroupShapeSchema,
);
