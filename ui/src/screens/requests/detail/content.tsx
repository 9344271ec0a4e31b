import { useState } from 'preact/hooks';
import { formatBytes } from '../format.ts';
import type { Blueprint, ContentBlock, Message } from '../types.ts';

/**
 * A conversation as text: messages by role, text blocks clipped, tool calls and results labelled, and
 * base64 payloads (images, files) summarised as `[image/png, 2.3 MB]` with a download: the page never
 * holds megabytes of text. Everything shown is a text node (model output is attacker-controlled).
 */

/** Characters of a text shown at first, and added by each "show more". */
const CLIP = 4_000;
const MORE = 50_000;

export function ClippedText({ text, class: className = 'request-text' }: { text: string; class?: string }) {
  const [shown, setShown] = useState(CLIP);
  const clipped = text.length > shown;
  return (
    <div>
      <pre class={className}>{clipped ? `${text.slice(0, shown)}…` : text}</pre>
      {clipped && (
        <button type="button" onClick={() => setShown(shown + MORE)}>
          Show more ({(text.length - shown).toLocaleString('en-US')} more characters)
        </button>
      )}
    </div>
  );
}

export interface Payload {
  mime: string;
  /** The base64 text (without its `data:` prefix). */
  data: string;
}

/** A base64 payload in a string: a `data:` URL, or a long run of base64 alone. Looks at its ends only. */
export function findPayload(text: string, mime = 'application/octet-stream'): Payload | null {
  const dataUrl = /^data:([\w.+/-]+)?(?:;[\w=.+-]+)*;base64,/.exec(text.slice(0, 200));
  if (dataUrl) return { mime: dataUrl[1] ?? mime, data: text.slice(dataUrl[0].length) };
  if (text.length < 1_000) return null;
  const looksBase64 =
    /^[A-Za-z0-9+/\r\n]+$/.test(text.slice(0, 4_096)) && /^[A-Za-z0-9+/\r\n]*=*$/.test(text.slice(-64));
  return looksBase64 ? { mime, data: text } : null;
}

/** Decoded size of base64 text. */
export function payloadBytes(data: string): number {
  const length = data.replace(/[\r\n]/g, '').length;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((length * 3) / 4) - padding);
}

export const describePayload = (payload: Payload) =>
  `[${payload.mime}, ${formatBytes(payloadBytes(payload.data))}]`;

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
};

/** Saves the payload as a file: a Blob URL made in the page and an `a[download]` (no data URL in the DOM). */
function download(payload: Payload): void {
  const binary = atob(payload.data.replace(/[\r\n]/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([bytes], { type: payload.mime }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `payload.${EXTENSIONS[payload.mime] ?? 'bin'}`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function PayloadSummary({ payload }: { payload: Payload }) {
  const [failed, setFailed] = useState(false);
  const summary = describePayload(payload);
  return (
    <p class="request-payload">
      <span class="request-block-label">{summary}</span>{' '}
      <button
        type="button"
        onClick={() => {
          try {
            download(payload);
          } catch {
            setFailed(true);
          }
        }}
      >
        Download {payload.mime}
      </button>
      {failed && <span class="error"> not valid base64: cannot be saved</span>}
    </p>
  );
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const obj = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** A media block's payload or address, whatever its provider's shape. */
function mediaOf(block: ContentBlock): { payload?: Payload; url?: string; note?: string } | null {
  const image = obj(block.image_url);
  const media = obj(block.media);
  const source = obj(block.source);
  const mime =
    str(media?.mime_type) ?? str(media?.type) ?? str(source?.media_type) ?? str(block.mime_type) ?? undefined;
  const url = str(image?.url) ?? str(media?.url) ?? str(source?.url) ?? str(block.url);
  const data = str(source?.data) ?? str(block.data) ?? str(media?.data);
  if (data) return { payload: findPayload(data, mime) ?? { mime: mime ?? 'application/octet-stream', data } };
  if (url) {
    const payload = findPayload(url, mime);
    return payload ? { payload } : { url };
  }
  const omitted = media?.omitted_base64_chars;
  if (typeof omitted === 'number')
    return { note: `[${mime || 'media'}, ${formatBytes(Math.floor((omitted * 3) / 4))}, not stored]` };
  return null;
}

function Block({ block }: { block: ContentBlock }) {
  if (block.type === 'text' && typeof block.text === 'string') {
    const payload = findPayload(block.text);
    return payload ? <PayloadSummary payload={payload} /> : <ClippedText text={block.text} />;
  }
  if (block.type === 'thinking' && typeof block.thinking === 'string')
    return (
      <div>
        <span class="request-block-label">thinking</span>
        <ClippedText text={block.thinking} />
      </div>
    );
  const media = ['image_url', 'media', 'image', 'file', 'input_image', 'input_audio', 'document'].includes(
    block.type,
  )
    ? mediaOf(block)
    : null;
  if (media?.payload) return <PayloadSummary payload={media.payload} />;
  if (media?.url)
    return (
      <p>
        <span class="request-block-label">[{block.type}]</span> {media.url.slice(0, 500)}
      </p>
    );
  if (media?.note) return <p class="request-block-label">{media.note}</p>;
  return (
    <div>
      <span class="request-block-label">[{block.type}]</span>
      <ClippedText text={jsonText(block)} />
    </div>
  );
}

/** JSON text of a value with its base64 payloads replaced by their summaries. */
export function jsonText(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item) => {
      if (typeof item !== 'string') return item;
      const payload = findPayload(item);
      return payload ? `${describePayload(payload)} base64 omitted` : item;
    },
    2,
  );
}

function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function MessageView({ message }: { message: Message }) {
  const role = message.role;
  return (
    <article class={`request-message request-message-${role}`}>
      <p class="request-message-role">
        {role}
        {message.name ? ` (${message.name})` : ''}
        {role === 'tool' && message.tool_call_id ? ` result for ${message.tool_call_id}` : ''}
      </p>
      {(message.content ?? []).map((block, index) => (
        <Block key={index} block={block} />
      ))}
      {(message.tool_calls ?? []).map((call, index) => (
        <div key={call.id ?? index} class="request-tool-call">
          <span class="request-block-label">
            tool call {call.function?.name ?? '?'}
            {call.id ? ` (${call.id})` : ''}
          </span>
          <ClippedText text={prettyArguments(call.function?.arguments ?? '')} />
        </div>
      ))}
    </article>
  );
}

export function Conversation({ blueprint, label }: { blueprint: Blueprint | undefined; label: string }) {
  if (!blueprint) return null;
  const messages: Message[] =
    blueprint.type === 'completion'
      ? [{ role: label === 'Output' ? 'assistant' : 'prompt', content: blueprint.content ?? [] }]
      : (blueprint.messages ?? []);
  return (
    <section aria-label={label}>
      <h3>{label}</h3>
      {messages.length === 0 && <p class="muted">Nothing.</p>}
      {messages.map((message, index) => (
        <MessageView key={index} message={message} />
      ))}
    </section>
  );
}
