/**
 * Builds DOM nodes from data. Every piece of text (from the model, crawled pages or people) goes
 * in as a text node, never as HTML: there is no innerHTML anywhere in the dashboard.
 */
export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | number | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces a node's children. */
export function fill(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}

/** An http(s) link to somewhere a crawled page or content lives; anything else is shown as text. */
export function safeLink(url: string, label: string): Node {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return h('a', { href: parsed.href, target: '_blank', rel: 'noopener noreferrer' }, label);
  } catch {
    // not a URL: plain text below
  }
  return document.createTextNode(label);
}

