// Runs dynalite in its own process (so the gateway and the database use both cores) and reports the
// port it listens on to the parent over IPC. It exits with its parent.
import { createRequire } from 'node:module';

const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
for (const name of ['conditionParser', 'updateParser', 'projectionParser']) {
  rememberParses(requireFromDynalite(`./db/${name}.js`));
}
// In memory (the tests), items are kept as JSON strings, not as their UTF-8 bytes: the conversions both
// ways cost more than the JSON. dynalite's keys are ASCII (hex and table names), so they sort the same.
const memoryLevel = requireFromDynalite('memory-level');
const { MemoryLevel } = memoryLevel;
memoryLevel.MemoryLevel = class extends MemoryLevel {
  constructor(options) {
    super({ storeEncoding: 'utf8', ...options });
  }
};
const { default: dynalite } = await import('dynalite');

const server = dynalite({
  path: process.env.DYNALITE_PATH || undefined,
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

/**
 * dynalite parses each expression of each call with a PEG parser: about a third of its CPU under the
 * workflow engine's writes. The service sends a few expressions over and over with other values, so a
 * parse is kept by its expression, its names and the types of its values, with each value as a slot
 * that the next call's value fills: the tree a parse of that call would give. The names and values it
 * uses are marked used as a parse marks them (dynalite refuses unused ones). Expressions whose parse
 * reads what a value holds (BETWEEN compares its bounds, attribute_type checks its type name) are
 * parsed each time.
 */
function rememberParses(parser) {
  const parse = parser.parse;
  const kept = new Map();
  const MAX_KEPT = 5_000;
  parser.parse = (input, options) => {
    const context = options?.context;
    if (!context || /between|attribute_type/i.test(input)) return parse(input, options);
    const names = context.attrNames ?? {};
    const values = context.attrVals ?? {};
    const types = Object.entries(values).map(([slot, value]) => [slot, Object.keys(value ?? {})]);
    const key = JSON.stringify([input, names, types]);
    let entry = kept.get(key);
    if (!entry) {
      // Parsed against a context of its own, so that every name and value this expression uses is
      // seen, whatever an earlier expression of the same call used.
      const probe = { ...context, unusedAttrNames: present(names), unusedAttrVals: present(values) };
      const tree = parse(input, { ...options, context: probe });
      const slots = new Map(Object.entries(values).map(([slot, value]) => [value, new Slot(slot)]));
      entry = {
        template: withSlots(tree, slots),
        usedNames: Object.keys(names).filter((name) => !Object.hasOwn(probe.unusedAttrNames, name)),
        usedValues: Object.keys(values).filter((slot) => !Object.hasOwn(probe.unusedAttrVals, slot)),
      };
      if (kept.size >= MAX_KEPT) kept.clear();
      kept.set(key, entry);
    }
    for (const name of entry.usedNames) delete context.unusedAttrNames?.[name];
    for (const slot of entry.usedValues) delete context.unusedAttrVals?.[slot];
    return filled(entry.template, values);
  };
}

class Slot {
  constructor(name) {
    this.name = name;
  }
}

const present = (object) => Object.fromEntries(Object.keys(object).map((key) => [key, true]));

/** A copy of a parse tree with each of the call's value objects replaced by its slot. */
function withSlots(node, slots) {
  if (node === null || typeof node !== 'object') return node;
  const slot = slots.get(node);
  if (slot) return slot;
  if (Array.isArray(node)) return node.map((child) => withSlots(child, slots));
  return copyObject(node, (child) => withSlots(child, slots));
}

/** A fresh tree from a template, its slots filled with this call's values. */
function filled(node, values) {
  if (node === null || typeof node !== 'object') return node;
  if (node instanceof Slot) return values[node.name];
  if (Array.isArray(node)) return node.map((child) => filled(child, values));
  return copyObject(node, (child) => filled(child, values));
}

/** A copy of a plain object, its entries mapped, with its prototype (dynalite makes some without one). */
function copyObject(node, map) {
  const copy = Object.create(Object.getPrototypeOf(node));
  for (const [key, child] of Object.entries(node)) copy[key] = map(child);
  return copy;
}
