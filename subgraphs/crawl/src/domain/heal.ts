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
//
// Code: steps 1, 1b and 3 here; step 2 in heal-field.ts; the selector candidates of steps 1 and 2
// in derive-selector.ts.

import { FIELD_NAMES, type FieldName, type ListSelectors } from './extract-items.js';
import {
  fillHistoryOf,
  fingerprintElement,
  type ElementFingerprint,
  type StoredFieldFingerprints,
  type StoredFingerprints,
} from './fingerprint.js';
import { FIELD_WEIGHTS, scoreCandidates, similarity, similarityToAny, type ScoredElement } from './relocate.js';
import { parseSelector, type ParsedSelector } from './selector.js';
import { deriveRowSelector, safeQueryAll, safeSelectWithin } from './derive-selector.js';
import { acceptableValue, healField, RIVAL_MARGIN, round } from './heal-field.js';

export const DEFAULT_HEAL_THRESHOLD = 0.6;
/** Similarity to the relocated row above which an element in another parent is a row too. */
export const ROW_RECOVERY = 0.7;
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

/** Tags of an element's ancestors, outermost first (as fingerprints store them). */
function pathOf(el: Element): string[] {
  const path: string[] = [];
  for (let a = el.parentElement; a; a = a.parentElement) path.unshift(a.localName);
  return path;
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
    const result = healField(document, pageUrl, rows, { field, spec, parsed, stored: fieldStore }, threshold);
    confidence[field] = result.confidence;
    if (result.failure !== undefined) {
      failedFields.push({ field, reason: result.failure });
      continue;
    }
    out[field] = result.spec;
    if (result.spec !== spec) healedFields.push(field);
  }

  return { selectors: out, healed: healedFields.length > 0, healedFields, failedFields, confidence };
}
