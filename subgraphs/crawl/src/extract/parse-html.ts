import { JSDOM, VirtualConsole } from 'jsdom';

/**
 * Parses a page into an inert DOM document with the DOMParser of one long-lived jsdom window,
 * rather than a new window per page: building a window (the whole web-platform surface) cost
 * 5.5 ms of the 8.3 ms `new JSDOM(html)` took per page in `bench/crawl-contender.js`, the
 * parsing itself under 3. Such documents run no scripts, load nothing, and report `about:blank`
 * as their URL: callers resolve links against the page's URL they pass on explicitly
 * (extractItems, healSelectors, fingerprintSelectors take it). The window's console is a silent
 * VirtualConsole, so a page's broken CSS does not reach the logs.
 */
let parser: DOMParser | undefined;

export function parseHtml(html: string): Document {
  parser ??= new (new JSDOM('', { virtualConsole: new VirtualConsole() }).window.DOMParser)();
  return parser.parseFromString(html, 'text/html');
}
