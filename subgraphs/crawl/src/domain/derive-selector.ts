// Selector derivation for self-healing (heal.ts steps 1 and 2): given the elements a selector
// must designate (the recovered rows; each row's relocated field element), build candidate
// selectors simplest first and keep the first that selects exactly them.

import { selectWithin } from './extract-items.js';
import type { ParsedSelector } from './selector.js';

/** Share of the rows in which a derived field selector must select the relocated element. */
export const FIELD_AGREEMENT = 0.8;

// ---------------------------------------------------------------------------------------------
// CSS building blocks

function cssIdent(value: string): string {
  return value
    .replace(/[^a-zA-Z0-9_\u00a0-\uffff-]/g, (c) => `\\${c}`)
    .replace(/^(-?)(\d)/, (_m, dash: string, digit: string) => `${dash}\\3${digit} `);
}

/** Classes worth putting in a selector: identifier-like, short, not generated (no 3+ digits). */
function isStableToken(token: string): boolean {
  return token.length <= 40 && /^-?[a-zA-Z_][\w-]*$/.test(token) && (token.match(/\d/g)?.length ?? 0) < 3;
}

export function safeQueryAll(root: Document | Element, css: string): Element[] | null {
  try {
    return Array.from(root.querySelectorAll(css));
  } catch {
    return null;
  }
}

export function safeSelectWithin(row: Element, css: string): Element | null {
  try {
    return selectWithin(row, css);
  } catch {
    return null;
  }
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/**
 * Ways to designate a set of same-tag elements at one level, most specific naming first: a stable
 * id (one element only), tag + each shared stable class, tag + all of them. The bare tag is
 * returned separately.
 */
function namedSteps(els: readonly Element[]): string[] {
  const distinct = unique(els);
  const tag = distinct[0]!.localName;
  if (distinct.some((e) => e.localName !== tag)) return [];
  const steps: string[] = [];
  if (distinct.length === 1) {
    const id = distinct[0]!.id;
    if (id && isStableToken(id) && !/\d/.test(id)) steps.push(`${tag}#${cssIdent(id)}`);
  }
  const shared = Array.from(distinct[0]!.classList).filter(
    (c) => isStableToken(c) && distinct.every((e) => e.classList.contains(c)),
  );
  for (const c of shared) steps.push(`${tag}.${cssIdent(c)}`);
  if (shared.length > 1) steps.push(`${tag}${shared.map((c) => `.${cssIdent(c)}`).join('')}`);
  return unique(steps);
}

function allSameTag(els: readonly Element[]): boolean {
  return els.length > 0 && els.every((e) => e.localName === els[0]!.localName);
}

/** Tag with :nth-of-type when needed to single the element out among its siblings. */
function nthStep(el: Element): string {
  const parent = el.parentElement;
  if (!parent) return el.localName;
  const sameTag = Array.from(parent.children).filter((c) => c.localName === el.localName);
  return sameTag.length === 1 ? el.localName : `${el.localName}:nth-of-type(${sameTag.indexOf(el) + 1})`;
}

// ---------------------------------------------------------------------------------------------
// Rows

function rowSelectorCandidates(rows: readonly Element[]): string[] {
  const tag = rows[0]!.localName;
  const own = namedSteps(rows);
  const parents = rows.flatMap((r) => (r.parentElement ? [r.parentElement as Element] : []));
  const grandparents = parents.flatMap((p) => (p.parentElement ? [p.parentElement as Element] : []));
  const parentSteps =
    parents.length === rows.length && allSameTag(parents) ? [...namedSteps(parents), parents[0]!.localName] : [];
  const grandSteps =
    grandparents.length === rows.length && allSameTag(grandparents)
      ? [...namedSteps(grandparents), grandparents[0]!.localName]
      : [];
  const ownAll = [...own, tag];
  const candidates: string[] = [...own];
  for (const p of parentSteps) for (const o of ownAll) candidates.push(`${p} > ${o}`);
  candidates.push(tag);
  for (const g of grandSteps) for (const p of parentSteps) for (const o of ownAll) candidates.push(`${g} > ${p} > ${o}`);
  // Structural path from <body>: ancestors shared by every row are pinned with :nth-of-type.
  const chains = rows.map((r) => {
    const chain: Element[] = [];
    for (let a = r.parentElement; a && a.localName !== 'html'; a = a.parentElement) chain.unshift(a);
    return chain;
  });
  if (chains.every((c) => c.length === chains[0]!.length)) {
    const steps: string[] = [];
    for (let level = 0; level < chains[0]!.length; level += 1) {
      const atLevel = unique(chains.map((c) => c[level]!));
      if (!allSameTag(atLevel)) break;
      steps.push(atLevel.length === 1 ? nthStep(atLevel[0]!) : atLevel[0]!.localName);
    }
    if (steps.length === chains[0]!.length) candidates.push([...steps, tag].join(' > '));
  }
  return unique(candidates);
}

/** The first candidate selecting exactly `rows`, else the best overlap (Jaccard). */
export function deriveRowSelector(document: Document, rows: readonly Element[]): { css: string; overlap: number } | null {
  const wanted = new Set(rows);
  let best: { css: string; overlap: number } | null = null;
  for (const css of rowSelectorCandidates(rows)) {
    const got = safeQueryAll(document, css);
    if (!got) continue;
    const common = got.filter((e) => wanted.has(e)).length;
    const overlap = common / (got.length + wanted.size - common);
    if (overlap === 1) return { css, overlap };
    if (!best || overlap > best.overlap) best = { css, overlap };
  }
  return best;
}


// ---------------------------------------------------------------------------------------------
// Fields

export interface FieldMatch {
  row: Element;
  element: Element;
  score: number;
}

function relativeCandidates(row: Element, el: Element, parsed: ParsedSelector): string[] {
  if (el === row) return [':scope'];
  const tag = el.localName;
  const own = namedSteps([el]);
  const attrStep = parsed.extract.kind === 'attr' ? [`${tag}[${cssIdent(parsed.extract.name)}]`] : [];
  const ownAll = [...own, tag, ...attrStep];
  const stepsOf = (a: Element | null): string[] =>
    a === null ? [] : a === row ? [':scope'] : [...namedSteps([a]), a.localName];
  const parentSteps = stepsOf(el.parentElement);
  const grandSteps = el.parentElement && el.parentElement !== row ? stepsOf(el.parentElement.parentElement) : [];
  const candidates: string[] = [...own];
  for (const p of parentSteps) for (const o of ownAll) candidates.push(`${p} > ${o}`);
  candidates.push(...attrStep, tag);
  for (const g of grandSteps) for (const p of parentSteps) for (const o of ownAll) candidates.push(`${g} > ${p} > ${o}`);
  const chain: string[] = [];
  for (let a: Element | null = el; a && a !== row; a = a.parentElement) chain.unshift(nthStep(a));
  candidates.push([':scope', ...chain].join(' > '));
  return unique(candidates);
}

export function deriveFieldSelector(matches: readonly FieldMatch[], parsed: ParsedSelector): { css: string; agreement: number } | null {
  const candidates = unique(matches.flatMap((m) => relativeCandidates(m.row, m.element, parsed)));
  let best: { css: string; agreement: number } | null = null;
  for (const css of candidates) {
    let agree = 0;
    for (const m of matches) if (safeSelectWithin(m.row, css) === m.element) agree += 1;
    const agreement = agree / matches.length;
    if (agreement === 1) return { css, agreement };
    if (!best || agreement > best.agreement) best = { css, agreement };
  }
  return best && best.agreement >= FIELD_AGREEMENT ? best : null;
}
