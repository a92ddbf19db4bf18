import { isAlnum } from './finder.js';

/** IPv4 dotted quads and IPv6 addresses (full, compressed, with embedded IPv4). */

export const IPV4_RE = /(?<![\p{L}\p{N}_.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\p{L}\p{N}_]|\.\d)/gu;

export function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

function isIPv6(s: string): boolean {
  if (s.length < 2 || s.length > 45) return false;
  let head = s;
  let extra = 0;
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return false;
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return false;
    extra = 2;
    head = s.slice(0, lastColon + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const dbl = head.indexOf('::');
  if (dbl !== head.lastIndexOf('::')) return false;
  if (dbl < 0) {
    const groups = head.split(':');
    return groups.length + extra === 8 && groups.every((g) => HEX_GROUP.test(g));
  }
  const left = head.slice(0, dbl);
  const right = head.slice(dbl + 2);
  const groups = [...(left ? left.split(':') : []), ...(right ? right.split(':') : [])];
  return groups.every((g) => HEX_GROUP.test(g)) && groups.length + extra <= 7;
}

const IPV6_CANDIDATE_RE = /(?<![\p{L}\p{N}_:.])[0-9A-Fa-f:][0-9A-Fa-f:.]*/gu;

export function findIPv6(work: string): [number, number][] {
  const found: [number, number][] = [];
  for (const m of work.matchAll(IPV6_CANDIDATE_RE)) {
    const rawEnd = m.index + m[0].length;
    if (isAlnum(work[rawEnd])) continue; // e.g. "fe80::1g": part of a word
    const text = m[0].replace(/\.+$/, ''); // sentence punctuation
    if ((text.match(/:/g) ?? []).length < 2 || !/\d/.test(text) || !isIPv6(text)) continue;
    found.push([m.index, m.index + text.length]);
  }
  return found;
}
