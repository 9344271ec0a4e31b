import type { PromptBlueprint } from '#shared/blueprints/schema.ts';
import { parseMultipart } from '#shared/platform/multipart-parse.ts';
import { renderBlueprint } from '#shared/prompts/render/blueprint.ts';
import { readSkillArchive } from '#shared/skills/archive.ts';
import { writeSkillArchive } from '#shared/skills/archive-write.ts';
import { jsonPathMatches } from '#shared/workflows/nodes/values.ts';

/**
 * A function that uses every package imported on demand but the price table (which has its own): it
 * renders a jinja2 template, evaluates a JSONPath, parses a multipart body and reads a ZIP. Bundled as the
 * stack bundles it and run from its asset alone (for the bundle test), it must find the packages the
 * `afterBundling` hook copied beside it, CommonJS ones included.
 */
export async function handler() {
  const template: PromptBlueprint = {
    type: 'completion',
    content: [{ type: 'text', text: '{% for item in items %}{{ item | upper }};{% endfor %}' }],
    template_format: 'jinja2',
  };
  const { blueprint } = await renderBlueprint(template, { items: ['a', 'b'] });
  const multipart = Buffer.from(
    '--b\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"name":"x"}\r\n--b--\r\n',
  );
  const parts = await parseMultipart(multipart, 'multipart/form-data; boundary=b', {
    fileFields: ['archive'],
    textFields: ['metadata'],
    maxFileBytes: 1024,
  });
  const zip = await writeSkillArchive([{ path: 'notes.md', content: 'hello' }]);
  return {
    rendered: blueprint.type === 'completion' ? blueprint.content[0] : undefined,
    matches: await jsonPathMatches({ items: [{ id: 1 }, { id: 2 }] }, '$.items[?@.id > 1].id'),
    fields: parts.fields,
    files: await readSkillArchive(zip),
  };
}
