// Step 2 of self-healing (heal.ts): one field within the kept or healed rows. Keep its selector
// when it still selects acceptable elements that look like the stored ones; else relocate the
// field in each row and derive a selector agreeing across the rows (derive-selector.ts).

import { extractValue, resolveLink, type FieldName } from './extract-items.js';
import { deriveFieldSelector, FIELD_AGREEMENT, type FieldMatch, safeSelectWithin } from './derive-selector.js';
import { fingerprintElement, type StoredFieldFingerprints } from './fingerprint.js';
import { FIELD_WEIGHTS, scoreCandidates, similarityToAny } from './relocate.js';
import { formatSelector, specSuffix, type ParsedSelector } from './selector.js';

/**
 * A selector that still matches is abandoned when other elements score more than this above it
 * (its rows or field elements were taken over by something that merely resembles them).
 */
export const RIVAL_MARGIN = 0.05;

/** Whether an element's value can be the field's: non-empty, a link an http(s) URL, digits when the stored values all had them. */
export function acceptableValue(field: FieldName, parsed: ParsedSelector, fieldStore: StoredFieldFingerprints, pageUrl: string): (el: Element) => boolean {
  return (el) => {
    const value = extractValue(el, parsed, field);
    if (value === null) return false;
    if (field === 'link' && resolveLink(value, pageUrl) === null) return false;
    if (fieldStore.valueHasDigits && !/\d/.test(value)) return false;
    return true;
  };
}

export function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** A field to check: its name, its selector spec (and parsed), and its stored fingerprints. */
export interface FieldToHeal {
  field: FieldName;
  spec: string;
  parsed: ParsedSelector;
  stored: StoredFieldFingerprints;
}

/** The field's selector (kept or healed) with the score that decided, or why it failed. */
export type FieldHealing = { spec: string; confidence: number; failure?: undefined } | { spec?: undefined; confidence: number; failure: string };

export function healField(document: Document, pageUrl: string, rows: readonly Element[], { field, spec, parsed, stored: fieldStore }: FieldToHeal, threshold: number): FieldHealing {
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
  if (current.length >= minRows && currentMean >= threshold && !outscored) return { spec, confidence: currentMean };

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
    const confidence = matches.length ? matches.reduce((s, m) => s + m.score, 0) / matches.length : bestBelow;
    const where = matches.length === 0 ? 'the rows' : 'the other rows';
    const others =
      bestBelow > 0
        ? `the best candidate in ${where} scored ${round(bestBelow)}`
        : `${where} have no candidate with an acceptable value`;
    return {
      confidence,
      failure:
        `${why}, and an element looking like the stored ${field} (score ≥ ${threshold}) was found in only ` +
        `${matches.length} of ${rows.length} rows, ${minRows} needed (${others})`,
    };
  }
  const derived = deriveFieldSelector(matches, parsed);
  const meanScore = matches.reduce((s, m) => s + m.score, 0) / matches.length;
  const fieldConfidence = meanScore * (derived?.agreement ?? 0);
  if (!derived || fieldConfidence < threshold) {
    return {
      confidence: fieldConfidence,
      failure: derived
        ? `${why}; relocated it (score ${round(meanScore)}) but the best selector "${derived.css}" agrees in only ${round(derived.agreement * 100)} % of rows`
        : `${why}; relocated it (score ${round(meanScore)}) but no selector selects it in at least ${FIELD_AGREEMENT * 100} % of rows`,
    };
  }
  return { spec: formatSelector(derived.css, specSuffix(spec)), confidence: fieldConfidence };
}
