/// <reference types="jsdom" />
// Self-healing of a job's list selectors, after Scrapling's adaptive relocation: fingerprint what
// the selectors matched on a good run (fingerprint.ts), and when they stop matching or match
// things that no longer look like it, score every candidate element against the fingerprints
// (relocate.ts), take the best above a threshold and derive new, verified selectors for it.
//
// Inputs: the page (a `new JSDOM(html, { url })` document, scripts never run), the job's current
// selectors and the fingerprints stored after the last good run (up to 5 rows that yielded an
// item, and each field's element in those rows with its path relative to the row).
//
// 1. List rows (similarity with the row weights).
//    Keep `listRow` when it matches elements, their mean best-sample similarity (first 50) is
//    ≥ threshold, and no element outside them scores more than RIVAL_MARGIN (0.05) above the best
//    of them (otherwise look-alikes took the selector over, e.g. navigation items that now carry
//    the old classes). Else relocate: score every element of <body>; if the best is below the
//    threshold, `listRow` FAILS (and every field with it). Else recover the other rows as
//    elements similar to the relocated one: same tag and same ancestor tag path, and either the
//    same parent or similarity to it ≥ ROW_RECOVERY (0.7). Then derive a selector: candidates
//    from the row tag and the stable classes all recovered rows share (identifier-like, ≤ 40
//    chars, fewer than 3 digits: generated class names are left out), and its parent's and
//    grandparent's tag/stable classes/stable id, simplest first — `tag.class`, `parent > tag.class`,
//    `parent > tag`, `tag`, `grandparent > parent > tag`, last a structural path from <body>
//    with :nth-of-type — and adopt the first for which `document.querySelectorAll` returns
//    exactly the recovered set (else the best Jaccard overlap, which scales the confidence).
//    Row confidence = mean similarity of the recovered rows (× overlap); below the threshold the
//    row selector fails.
// 1b. Rows that are not the list. Look-alikes can pass step 1: a redesign that moves the list
//    to new classes and reuses the old ones elsewhere (a sidebar, a topics block) leaves the old
//    selector matching rows that resemble the stored ones. What gives them away is what they
//    lack: a field every earlier run filled (its lowest fill rate over the recorded runs,
//    `fillHistory`, at least FILLED_BEFORE = 50 %) found — by its selector with an acceptable
//    value, or by a look-alike scoring ≥ threshold inside the row — in less than LACKING_SHARE
//    (half) of that rate. Then the best other lists on the page (up to 5 candidates outside the
//    rows, recovered and given an exact selector as in step 1) are tried; the first that scores
//    ≥ threshold and lacks nothing becomes the rows (healed). Without one, the rows FAIL (so
//    no item is stored) when they were relocated in step 1 or none of them sits under a stored
//    row's ancestor path; rows still where the list was keep going and only the missing fields
//    fail below (the list itself dropped them, e.g. dates removed).
// 2. Fields, within the kept or healed rows (similarity with the field weights, fingerprints
//    relative to the row). A candidate value must be acceptable: non-empty; for `link` an http(s)
//    URL once resolved; for text fields whose stored values all had digits (dates) it must have
//    a digit. Keep the field when its selector matches acceptable elements in at least half the
//    stored coverage of rows, their mean similarity is ≥ threshold and the best candidates of
//    those rows do not beat them by more than RIVAL_MARGIN. Else, in each row, the best
//    acceptable candidate among the row and its descendants is that row's match when it
//    reaches the threshold; with matches in fewer rows than half the stored coverage the field
//    FAILS. Else derive a relative selector — `tag.class`, `parent > tag(.class)`,
//    `parent > tag[attr]`, `tag`, `tag[attr]`, `grandparent > parent > tag`, a
//    `:scope > … > tag` path with :nth-of-type, or `:scope` for the row itself — verified per
//    row (`row.querySelector(candidate)` must return that row's match): the first agreeing in
//    every row, else the best agreeing in ≥ FIELD_AGREEMENT (80 %) of them, else the field fails.
//    The spec's `::attr(…)`/`::text` suffix is kept. Field confidence = mean score of the matches
//    × agreement; below the threshold the field fails.
// 3. Result. `healed` is true when a selector changed; callers adopt `selectors` as a new selector
//    version on the job and set selfHealingOccurred. A failed field is listed in `failedFields`
//    with a reason and LEFT OUT of `selectors`, so extracting with them gives null for it, never
//    a wrong value. When `listRow` fails, `healed` is false, `listRow` is returned unchanged and
//    every field is failed and left out, so no item is extracted. `confidence` holds, per
//    selector checked, the score that decided.
//
// Weights (relocate.ts)     tag  classes  attributes  text  path  parent  siblings  children
//   rows (default)          0.10   0.15      0.05     0.15  0.15   0.10     0.10      0.20
//   fields (within a row)   0.15   0.20      0.05     0.25  0.10   0.10     0.10      0.05
// Default threshold 0.6. On the fixture site (test/fixtures) against v1's fingerprints: rows with
// renamed classes score 0.76–0.79, re-wrapped 0.85–0.88, reordered 0.92–0.95, while the best
// non-rows (navigation, footer links, sign-in form) score ≤ 0.55; relocated fields score 0.75–0.98
// while the best wrong element with an acceptable value scores ≤ 0.45.
//
// Limitations: similarity compares shapes, not meaning. A field replaced in place by another of
// the same shape (same tag and classes, text of the same kind) is kept; the value checks only
// catch dates losing their digits and links losing their URL. Rows rebuilt with another tag AND
// other classes (e.g. <li class="news-item"> → <div class="card">) score about 0.57–0.6 and fail
// rather than heal. Rows spread over several parents are recovered only when they share the
// ancestor tag path; a list that is split, paginated differently or mixed with other row kinds
// under the same parent may give a selector that also selects those (all siblings of the same
// tag under the relocated row's parent are taken as rows). Healing needs fingerprints from a good
// run with the current selectors: refresh them after each good run and whenever selectors change.
// Cost: every element of the page is fingerprinted when rows are checked (O(elements × depth)).

import {
  extractValue,
  FIELD_NAMES,
  resolveLink,
  selectWithin,
  type FieldName,
  type ListSelectors,
} from './extract-items.js';
import {
  fillHistoryOf,
  fingerprintElement,
  type ElementFingerprint,
  type StoredFieldFingerprints,
  type StoredFingerprints,
} from './fingerprint.js';
import { FIELD_WEIGHTS, scoreCandidates, similarity, similarityToAny, type ScoredElement } from './relocate.js';
import { formatSelector, parseSelector, specSuffix, type ParsedSelector } from './selector.js';

export const DEFAULT_HEAL_THRESHOLD = 0.6;
/** Similarity to the relocated row above which an element in another parent is a row too. */
export const ROW_RECOVERY = 0.7;
/** Share of the rows in which a derived field selector must select the relocated element. */
export const FIELD_AGREEMENT = 0.8;
/**
 * A selector that still matches is abandoned when other elements score more than this above it
 * (its rows or field elements were taken over by something that merely resembles them).
 */
export const RIVAL_MARGIN = 0.05;
/** Rows checked when deciding whether the current listRow selector still fits. */
const ROWS_CHECKED = 50;
/** A field filled in at least this share of the rows in every recorded run counts as one every earlier run filled. */
export const FILLED_BEFORE = 0.5;
/** Rows filling such a field in less than this share of its lowest earlier fill rate lack it. */
export const LACKING_SHARE = 0.5;
/** Other lists tried when the rows in hand lack fields every earlier run filled. */
const RIVAL_LISTS_TRIED = 5;

export type HealField = 'listRow' | FieldName;

export interface HealOptions {
  /** Minimum similarity to keep or relocate a selector; default DEFAULT_HEAL_THRESHOLD (0.6). */
  threshold?: number;
}

export interface HealResult {
  selectors: ListSelectors;
  healed: boolean;
  healedFields: HealField[];
  failedFields: { field: HealField; reason: string }[];
  confidence: Partial<Record<HealField, number>>;
}

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

function safeQueryAll(root: Document | Element, css: string): Element[] | null {
  try {
    return Array.from(root.querySelectorAll(css));
  } catch {
    return null;
  }
}

function safeSelectWithin(row: Element, css: string): Element | null {
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
function deriveRowSelector(document: Document, rows: readonly Element[]): { css: string; overlap: number } | null {
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

function sameAncestorPath(a: Element, b: Element): boolean {
  let x = a.parentElement;
  let y = b.parentElement;
  while (x && y) {
    if (x.localName !== y.localName) return false;
    x = x.parentElement;
    y = y.parentElement;
  }
  return x === null && y === null;
}

/** The relocated row and the elements like it: same tag and ancestor path, same parent or similar. */
function recoverRows(document: Document, anchor: Element): Element[] {
  const anchorFp = fingerprintElement(anchor);
  return Array.from(document.getElementsByTagName(anchor.localName)).filter(
    (el) =>
      el === anchor ||
      (sameAncestorPath(el, anchor) &&
        (el.parentElement === anchor.parentElement || similarity(fingerprintElement(el), anchorFp) >= ROW_RECOVERY)),
  );
}

function meanSimilarity(els: readonly Element[], samples: readonly ElementFingerprint[]): number {
  if (els.length === 0 || samples.length === 0) return 0;
  let sum = 0;
  for (const el of els) sum += similarityToAny(fingerprintElement(el), samples);
  return sum / els.length;
}

// ---------------------------------------------------------------------------------------------
// Fields

interface FieldMatch {
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

function deriveFieldSelector(matches: readonly FieldMatch[], parsed: ParsedSelector): { css: string; agreement: number } | null {
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

/** Whether an element's value can be the field's: non-empty, a link an http(s) URL, digits when the stored values all had them. */
function acceptableValue(field: FieldName, parsed: ParsedSelector, fieldStore: StoredFieldFingerprints, pageUrl: string): (el: Element) => boolean {
  return (el) => {
    const value = extractValue(el, parsed, field);
    if (value === null) return false;
    if (field === 'link' && resolveLink(value, pageUrl) === null) return false;
    if (fieldStore.valueHasDigits && !/\d/.test(value)) return false;
    return true;
  };
}

/** Tags of an element's ancestors, outermost first (as fingerprints store them). */
function pathOf(el: Element): string[] {
  const path: string[] = [];
  for (let a = el.parentElement; a; a = a.parentElement) path.unshift(a.localName);
  return path;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

// ---------------------------------------------------------------------------------------------

export function healSelectors(
  document: Document,
  pageUrl: string,
  selectors: ListSelectors,
  stored: StoredFingerprints,
  options: HealOptions = {},
): HealResult {
  const threshold = options.threshold ?? DEFAULT_HEAL_THRESHOLD;
  const healedFields: HealField[] = [];
  const failedFields: { field: HealField; reason: string }[] = [];
  const confidence: Partial<Record<HealField, number>> = {};
  const out: ListSelectors = { listRow: selectors.listRow };
  const presentFields = FIELD_NAMES.filter((f) => selectors[f] !== undefined && selectors[f]!.trim() !== '');

  const failEverything = (reason: string): HealResult => {
    failedFields.push({ field: 'listRow', reason });
    for (const f of presentFields) failedFields.push({ field: f, reason: 'not checked: listRow failed' });
    return { selectors: out, healed: false, healedFields: [], failedFields, confidence };
  };

  // Fields every earlier run filled, and how to tell whether a set of rows has them.
  const filledBefore = presentFields.flatMap((field) => {
    const fieldStore = stored.fields[field];
    if (!fieldStore || fieldStore.samples.length === 0) return [];
    const earlier = Math.min(...fillHistoryOf(fieldStore));
    if (earlier < FILLED_BEFORE) return [];
    let parsed: ParsedSelector;
    try {
      parsed = parseSelector(selectors[field]!);
    } catch {
      return [];
    }
    return [{ field, fieldStore, parsed, earlier, acceptable: acceptableValue(field, parsed, fieldStore, pageUrl) }];
  });
  /** The fields filled before that `rows` have (current selector, or a look-alike in the row) in fewer than half as many rows. */
  const lackingFields = (rows: readonly Element[]): { field: FieldName; fill: number; earlier: number }[] =>
    filledBefore.flatMap(({ field, fieldStore, parsed, earlier, acceptable }) => {
      const filled = rows.filter((row) => {
        const el = safeSelectWithin(row, parsed.css);
        if (el && acceptable(el)) return true;
        const top = scoreCandidates(document, fieldStore.samples, { within: row, accept: acceptable, weights: FIELD_WEIGHTS })[0];
        return top !== undefined && top.score >= threshold;
      }).length;
      const fill = rows.length ? filled / rows.length : 0;
      return fill < earlier * LACKING_SHARE ? [{ field, fill, earlier }] : [];
    });

  // 1. Rows.
  const rowSamples = stored.listRow.samples;
  let rowCss = selectors.listRow;
  try {
    rowCss = parseSelector(selectors.listRow).css;
  } catch {
    // a malformed suffix: the raw spec fails as CSS below and the rows are relocated
  }
  const currentRows = safeQueryAll(document, rowCss) ?? [];
  const checkedScores = currentRows
    .slice(0, ROWS_CHECKED)
    .map((el) => similarityToAny(fingerprintElement(el), rowSamples));
  const currentScore = checkedScores.length ? checkedScores.reduce((a, b) => a + b, 0) / checkedScores.length : 0;
  const currentBest = Math.max(0, ...checkedScores);
  let ranked: ScoredElement[] | null = null;
  const rankRows = (): ScoredElement[] => (ranked ??= scoreCandidates(document, rowSamples));
  /** Whether none of `rows` sits under the ancestor path of a stored row. */
  const movedAway = (rows: readonly Element[]): boolean => {
    const storedPaths = new Set(rowSamples.map((sample) => sample.path.join(' > ')));
    return !rows.slice(0, ROWS_CHECKED).some((row) => storedPaths.has(pathOf(row).join(' > ')));
  };
  /**
   * Another list on the page that looks like the stored rows (score ≥ threshold, a selector
   * selecting exactly it) and has the fields every earlier run filled: the real list when the
   * rows in hand are look-alikes. The best few candidates outside `rows` are tried.
   */
  const rivalList = (impostors: readonly Element[]): { rows: Element[]; css: string; score: number } | null => {
    const excluded = new Set<Element>(impostors);
    let tried = 0;
    for (const candidate of rankRows()) {
      if (candidate.score < threshold || tried >= RIVAL_LISTS_TRIED) break;
      const el = candidate.element;
      if (excluded.has(el) || impostors.some((row) => row.contains(el) || el.contains(row))) continue;
      tried += 1;
      const recovered = recoverRows(document, el);
      for (const row of recovered) excluded.add(row);
      if (recovered.some((row) => impostors.includes(row))) continue;
      const derived = deriveRowSelector(document, recovered);
      if (!derived || derived.overlap < 1) continue;
      const score = meanSimilarity(recovered.slice(0, ROWS_CHECKED), rowSamples);
      if (score >= threshold && lackingFields(recovered).length === 0) return { rows: recovered, css: derived.css, score };
    }
    return null;
  };
  let rows: Element[] | null = null;
  let what = `"${selectors.listRow}" matches nothing`;
  if (currentRows.length > 0 && rowSamples.length === 0) {
    rows = currentRows; // nothing stored to compare with
  } else if (currentRows.length > 0 && currentScore < threshold) {
    what = `"${selectors.listRow}" matches ${currentRows.length} elements that do not look like the stored rows (score ${round(currentScore)})`;
  } else if (currentRows.length > 0) {
    const matched = new Set(currentRows);
    const rival = rankRows().find((c) => !matched.has(c.element));
    if (rival && rival.score > currentBest + RIVAL_MARGIN) {
      what =
        `"${selectors.listRow}" matches ${currentRows.length} elements (score ${round(currentScore)}) but ` +
        `<${rival.element.localName}> elements elsewhere look more like the stored rows (score ${round(rival.score)})`;
    } else {
      rows = currentRows;
      confidence.listRow = currentScore;
    }
  }
  if (!rows) {
    if (rowSamples.length === 0) {
      return failEverything(`${what} and no fingerprint of the rows was stored to relocate them`);
    }
    const top = rankRows()[0];
    if (!top || top.score < threshold) {
      confidence.listRow = top?.score ?? 0;
      const bestText = top ? `best candidate <${top.element.localName}> scored ${round(top.score)}` : 'the page has no elements';
      return failEverything(`${what}, and no element on the page looks like the stored list rows (${bestText}, threshold ${threshold})`);
    }
    const recovered = recoverRows(document, top.element);
    const derived = deriveRowSelector(document, recovered);
    const rowScore = meanSimilarity(recovered.slice(0, ROWS_CHECKED), rowSamples) * (derived?.overlap ?? 0);
    confidence.listRow = rowScore;
    if (!derived || rowScore < threshold) {
      const problem = !derived
        ? 'no selector could be derived for them'
        : derived.overlap < 1
          ? `no selector selects just them (best "${derived.css}", overlap ${round(derived.overlap)}, confidence ${round(rowScore)})`
          : `the ${recovered.length} rows recovered around it only score ${round(rowScore)} on average (threshold ${threshold})`;
      return failEverything(`${what}; relocated a row candidate <${top.element.localName}> (score ${round(top.score)}) but ${problem}`);
    }
    rows = derived.overlap === 1 ? recovered : (safeQueryAll(document, derived.css) ?? recovered);
    out.listRow = derived.css;
    if (out.listRow !== selectors.listRow) healedFields.push('listRow');
  }

  // 1b. Rows that are not the list: they lack fields every earlier run filled.
  const lacking = lackingFields(rows);
  if (lacking.length > 0) {
    const relocatedRows = healedFields.includes('listRow');
    const problem =
      `the ${rows.length} rows ${relocatedRows ? `relocated to "${out.listRow}"` : `that "${selectors.listRow}" matches`} lack fields every earlier run filled ` +
      `(${lacking.map((l) => `${l.field} in ${Math.round(l.fill * 100)} % of them, earlier runs at least ${Math.round(l.earlier * 100)} %`).join('; ')})`;
    const rival = rivalList(rows);
    if (rival) {
      rows = rival.rows;
      out.listRow = rival.css;
      confidence.listRow = rival.score;
      if (rival.css !== selectors.listRow && !healedFields.includes('listRow')) healedFields.push('listRow');
    } else if (relocatedRows || movedAway(rows)) {
      const where = relocatedRows ? '' : ` and sit elsewhere on the page (<${pathOf(rows[0]!).join(' > ')}>, the stored rows under <${rowSamples[0]!.path.join(' > ')}>)`;
      return failEverything(`${problem}${where}, and no other list on the page looks like the stored rows with those fields: not storing items that are probably not the list's`);
    }
    // Else the list itself is where it was and lost those fields: they fail below and stay empty.
  }

  // 2. Fields, within the rows.
  for (const field of presentFields) {
    const spec = selectors[field]!;
    const fieldStore: StoredFieldFingerprints | undefined = stored.fields[field];
    if (!fieldStore || fieldStore.samples.length === 0) {
      out[field] = spec; // nothing to compare with: keep as it is
      continue;
    }
    let parsed: ParsedSelector;
    try {
      parsed = parseSelector(spec);
    } catch (error) {
      failedFields.push({ field, reason: (error as Error).message });
      continue;
    }
    const acceptable = acceptableValue(field, parsed, fieldStore, pageUrl);
    const minRows = Math.max(1, Math.ceil(rows.length * fieldStore.coverage * 0.5));

    // Per row, the best candidate with an acceptable value (the row and its descendants).
    const best = rows.map(
      (row) => scoreCandidates(document, fieldStore.samples, { within: row, accept: acceptable, weights: FIELD_WEIGHTS })[0],
    );

    // Keep?
    const current: FieldMatch[] = [];
    let rivalSum = 0;
    let matchedAtAll = 0;
    rows.forEach((row, i) => {
      const el = safeSelectWithin(row, parsed.css);
      if (el) matchedAtAll += 1;
      if (el && acceptable(el)) {
        const score = similarityToAny(fingerprintElement(el, { root: row }), fieldStore.samples, FIELD_WEIGHTS);
        current.push({ row, element: el, score });
        rivalSum += Math.max(score, best[i]?.score ?? 0);
      }
    });
    const currentMean = current.length ? current.reduce((s, m) => s + m.score, 0) / current.length : 0;
    const rivalMean = current.length ? rivalSum / current.length : 0;
    const outscored = rivalMean > currentMean + RIVAL_MARGIN;
    if (current.length >= minRows && currentMean >= threshold && !outscored) {
      out[field] = spec;
      confidence[field] = currentMean;
      continue;
    }

    // Relocate within each row: its best candidate, when it reaches the threshold.
    const matches: FieldMatch[] = [];
    let bestBelow = 0;
    rows.forEach((row, i) => {
      const top = best[i];
      if (!top) return;
      if (top.score >= threshold) matches.push({ row, element: top.element, score: top.score });
      else bestBelow = Math.max(bestBelow, top.score);
    });
    const unacceptable = [
      'empty',
      ...(field === 'link' ? ['not an http(s) URL'] : []),
      ...(fieldStore.valueHasDigits ? ['without a digit (all stored values had one)'] : []),
    ].join(' or ');
    const why =
      matchedAtAll === 0
        ? `"${spec}" matches nothing`
        : current.length === 0
          ? `"${spec}" matches elements whose values are not acceptable (${unacceptable})`
          : current.length < minRows
            ? `"${spec}" matches an element with an acceptable value in only ${current.length} of ${rows.length} rows`
            : currentMean < threshold
              ? `"${spec}" matches elements that do not look like the stored ones (score ${round(currentMean)})`
              : `"${spec}" matches elements (score ${round(currentMean)}) but other elements of the rows look more ` +
                `like the stored ${field} (score ${round(rivalMean)})`;
    if (matches.length < minRows) {
      confidence[field] = matches.length ? matches.reduce((s, m) => s + m.score, 0) / matches.length : bestBelow;
      const where = matches.length === 0 ? 'the rows' : 'the other rows';
      const others =
        bestBelow > 0
          ? `the best candidate in ${where} scored ${round(bestBelow)}`
          : `${where} have no candidate with an acceptable value`;
      failedFields.push({
        field,
        reason:
          `${why}, and an element looking like the stored ${field} (score ≥ ${threshold}) was found in only ` +
          `${matches.length} of ${rows.length} rows, ${minRows} needed (${others})`,
      });
      continue;
    }
    const derived = deriveFieldSelector(matches, parsed);
    const meanScore = matches.reduce((s, m) => s + m.score, 0) / matches.length;
    const fieldConfidence = meanScore * (derived?.agreement ?? 0);
    confidence[field] = fieldConfidence;
    if (!derived || fieldConfidence < threshold) {
      failedFields.push({
        field,
        reason: derived
          ? `${why}; relocated it (score ${round(meanScore)}) but the best selector "${derived.css}" agrees in only ${round(derived.agreement * 100)} % of rows`
          : `${why}; relocated it (score ${round(meanScore)}) but no selector selects it in at least ${FIELD_AGREEMENT * 100} % of rows`,
      });
      continue;
    }
    const healedSpec = formatSelector(derived.css, specSuffix(spec));
    out[field] = healedSpec;
    if (healedSpec !== spec) healedFields.push(field);
  }

  return { selectors: out, healed: healedFields.length > 0, healedFields, failedFields, confidence };
}
