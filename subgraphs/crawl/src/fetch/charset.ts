// Decoding fetched pages: the media type and charset of a Content-Type header, a WHATWG-style
// prescan for <meta charset>, and the order a body is decoded in (BOM, header, meta, UTF-8).

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** Media type (lower case, no parameters) and charset parameter of a Content-Type value. */
export function parseContentType(value: string | undefined): { type: string; charset?: string } {
  if (!value) return { type: '' };
  const [type = '', ...params] = value.split(';');
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/s, '$1').trim() || undefined;
    break;
  }
  return { type: type.trim().toLowerCase(), ...(charset ? { charset } : {}) };
}

/** A TextDecoder for a label, or undefined when the label is unknown. */
function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim());
  } catch {
    return undefined;
  }
}

const ATTRIBUTE = /([^\s"'<>\/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?/g;

/** The charset a `<meta>` in the first 1024 bytes declares (simplified WHATWG prescan). */
export function sniffMetaCharset(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.subarray(0, 1024)).toString('latin1').replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  for (const [, inner = ''] of head.matchAll(/<meta(?=[\s\/])([^>]*)>?/gi)) {
    const attributes = new Map<string, string>();
    for (const [, name = '', raw = ''] of inner.matchAll(ATTRIBUTE)) {
      const key = name.toLowerCase();
      if (!attributes.has(key)) attributes.set(key, raw.replace(/^(["'])([\s\S]*)\1$/, '$2'));
    }
    const charset = attributes.get('charset');
    if (charset) return charset.trim();
    if (attributes.get('http-equiv')?.trim().toLowerCase() === 'content-type') {
      const match = /charset\s*=\s*["']?([^\s"';]+)/i.exec(attributes.get('content') ?? '');
      if (match?.[1]) return match[1];
    }
  }
  return undefined;
}

/** Decodes a body: BOM, then the header's charset, then (HTML) a meta declaration, then UTF-8. */
export function decodeBody(body: Uint8Array, type: string, headerCharset?: string): { text: string; charset: string } {
  let decoder: TextDecoder | undefined;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) decoder = new TextDecoder('utf-8');
  else if (body[0] === 0xfe && body[1] === 0xff) decoder = new TextDecoder('utf-16be');
  else if (body[0] === 0xff && body[1] === 0xfe) decoder = new TextDecoder('utf-16le');
  decoder ??= decoderFor(headerCharset);
  if (!decoder && HTML_TYPES.has(type)) {
    decoder = decoderFor(sniffMetaCharset(body));
    if (decoder?.encoding.startsWith('utf-16')) decoder = new TextDecoder('utf-8');
  }
  decoder ??= new TextDecoder('utf-8');
  return { text: decoder.decode(body), charset: decoder.encoding };
}
