// html-encoding-sniffer ships no types; this is the part fetch/charset.ts uses.
declare module 'html-encoding-sniffer' {
  interface SniffOptions {
    /** The Content-Type charset; an unknown label is ignored. */
    transportLayerEncodingLabel?: string;
    /** Returned when nothing else decides; default windows-1252. */
    defaultEncoding?: string;
    /** Bytes the <meta> prescan reads; default 1024, 0 skips it. */
    maxPrescanBytes?: number;
    xml?: boolean;
  }
  /** The WHATWG name of the encoding to decode `bytes` with. */
  export default function sniffHTMLEncoding(bytes: Uint8Array, options?: SniffOptions): string;
}
