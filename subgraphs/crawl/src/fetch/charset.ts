// Decoding fetched pages: the media type and charset of a Content-Type header, and the body in
// the encoding the WHATWG sniffing algorithm picks (BOM, header, <meta> prescan, UTF-8).

import sniffHTMLEncoding from 'html-encoding-sniffer';

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

/**
 * Decodes a body in the WHATWG order: a byte order mark, else the header's charset, else (HTML
 * only) a `<meta>` in the first 1024 bytes (html-encoding-sniffer, as jsdom does), else UTF-8.
 * Unknown labels fall through to the next source; a UTF-16 label in a meta tag means UTF-8. A
 * label naming no decoder (the WHATWG `replacement` encoding, e.g. iso-2022-kr) decodes as UTF-8.
 */
export function decodeBody(body: Uint8Array, type: string, headerCharset?: string): { text: string; charset: string } {
  // Other types get no prescan: given only the first 3 bytes, the sniffer finds a BOM and
  // nothing else (no <meta>, no XML declaration), so it decides by BOM, header, UTF-8.
  const sniffed = HTML_TYPES.has(type) ? body : body.subarray(0, 3);
  const encoding = sniffHTMLEncoding(sniffed, { ...(headerCharset ? { transportLayerEncodingLabel: headerCharset } : {}), defaultEncoding: 'UTF-8' });
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return { text: decoder.decode(body), charset: decoder.encoding };
}
