import type { ChatMessage, ContentPart } from './openai-types.js';

/**
 * The most prompt tokens a request can be billed, whatever the provider: what a hard budget
 * reserves before the call. Reservations may overestimate; they never underestimate.
 *
 * - Text (messages, tool calls, tool definitions, any other JSON in a part): one token per
 *   UTF-8 byte, the worst case of byte-level BPE tokenizers, plus framing per message.
 * - Images: by detail. `low` is a fixed charge; `high`/`auto` (or none) is the largest an image
 *   can cost after providers scale it (OpenAI scales into 2048×2048 then 768 on the short side:
 *   at most 8 tiles of 512 px). Both use the costliest per-tile rate among current models
 *   (gpt-4o-mini bills an image ~33× the gpt-4o tokens): 2,833 tokens for low, 25,500 for the
 *   largest high-detail image. Anthropic's ceiling (about 1,600 tokens) lies below.
 * - Audio (`input_audio`): by duration, bounded from the data's size at the lowest bitrate a
 *   provider accepts (8 kbit/s → 1,000 bytes a second) and 10 tokens a second; 1 token per 100
 *   bytes of decoded audio.
 * - Any other part (files, documents, kinds not known yet): a conservative ceiling of
 *   {@link UNKNOWN_PART_TOKENS} each, since its cost cannot be bounded from the request.
 */
export const IMAGE_LOW_TOKENS = 2_833;
export const IMAGE_HIGH_TOKENS = 25_500;
export const UNKNOWN_PART_TOKENS = 128_000;
const MESSAGE_FRAMING = 4;
const REPLY_PRIMING = 3;

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const payload = data.includes(',') ? data.slice(data.indexOf(',') + 1) : data;
  return Math.ceil((payload.length * 3) / 4);
}

/** The most tokens one content part can be billed. */
export function partTokenBound(part: ContentPart): number {
  switch (part.type) {
    case 'text':
      return Buffer.byteLength(typeof part.text === 'string' ? part.text : '');
    case 'image_url': {
      const image = part.image_url as { url?: unknown; detail?: unknown } | undefined;
      return image?.detail === 'low' ? IMAGE_LOW_TOKENS : IMAGE_HIGH_TOKENS;
    }
    case 'input_audio': {
      const audio = part.input_audio as { data?: unknown } | undefined;
      return Math.max(1, Math.ceil(base64Bytes(audio?.data) / 100));
    }
    default:
      return UNKNOWN_PART_TOKENS;
  }
}

/** Upper bound of the prompt tokens of `messages` and `tools`. */
export function promptTokenBound(messages: readonly ChatMessage[], tools: unknown): number {
  let tokens = REPLY_PRIMING;
  for (const m of messages) {
    tokens += MESSAGE_FRAMING + Buffer.byteLength(JSON.stringify(m.tool_calls ?? ''));
    if (typeof m.content === 'string') tokens += Buffer.byteLength(m.content);
    else if (Array.isArray(m.content)) for (const part of m.content) tokens += partTokenBound(part);
  }
  if (tools) tokens += Buffer.byteLength(JSON.stringify(tools));
  return tokens;
}
