/**
 * A JSON value as indented text in a <pre>: whatever it holds (model output, metadata written by
 * anyone) is text, never markup.
 */
export function JsonView({ value }: { value: unknown }) {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return <pre class="json-view">{text}</pre>;
}
