/**
 * What the question asks: why something changed, what would happen if a lever moved, where
 * a metric is heading, which of its parts comes first (`rank`), or how much it was (`value`); which direction it claims the metric moved; and a what-if's lever, read
 * against the catalog (a metric plus the label values the text names) and its percentage.
 */
import type { MetricDef } from './catalog.js';
import { findMetrics, stem, tokens } from './subject.js';

export type Intent = 'why' | 'what-if' | 'forecast' | 'rank' | 'value';
export type Direction = 'up' | 'down';

export interface WhatIf {
  /** The words read, e.g. `increase search ad spend by 20%`. */
  text: string;
  /** Relative change, +0.2 for "increase … by 20 %". */
  change: number;
  /** The catalog metric moved; undefined when no metric matched the lever's words. */
  metric?: string;
  /** Label values the lever's words named, e.g. `{channel: 'search'}`. */
  labels: Record<string, string>;
}

export interface QuestionReading {
  intents: Intent[];
  /** The direction the question says the subject moved, if it says one. */
  claimed?: Direction;
  /** The word that claimed it, e.g. `drop`. */
  claimWord?: string;
  /** The question without its what-if clause: where the subject is looked for. */
  subjectText: string;
  /** The what-if clause without its lever's words (e.g. `what would happen to bookings if we`): where the subject is looked for next. */
  whatIfRest?: string;
  whatIf?: WhatIf;
  /** Days ahead a forecast question asks about (next week 7, next month 30); 28 by default. */
  horizonDays: number;
  /** For `value`: the question asks for a day's figure ("average daily", "per day"). */
  perDay?: boolean;
  /** For `rank`: whether the question asks for the largest parts, the smallest, or the best or worst (which depends on whether up is good). */
  rankOrder?: 'most' | 'least' | 'best' | 'worst';
}

const DOWN = /\b(fewer|drop(?:s|ped)?|fall(?:s|en)?|fell|declin(?:e|es|ed)|decreas(?:e|es|ed)|dip(?:s|ped)?|down|plung(?:e|es|ed)|slump(?:s|ed)?|shr[iau]nk|lower|worse|lost|los(?:e|ing)|tank(?:s|ed)?|s[ai]nk|collaps(?:e|ed)|crash(?:ed)?)\b/;
const UP = /\b(ris(?:e|es|en)|rose|spik(?:e|es|ed)|increas(?:e|es|ed)|gr[eo]w(?:s|n)?|jump(?:s|ed)?|surg(?:e|es|ed)|climb(?:s|ed)?|(?<!\b(?:sign|signed|set|pick|picked|log|logged|back|show|showed|look|follow|catch|sum|summed|add|added|open|opened|spin|spun)\s)up|higher|improv(?:e|es|ed)|soar(?:s|ed)?|boost(?:ed)?)\b/;
const LEVER = /\b(increase|raise|boost|grow|double|add|cut|reduce|decrease|lower|halve|drop|trim|spend)\s+(?:the\s+|our\s+)?(.+?)\s+(?:by\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent\b)/;
/** The amount first: "20 % more ad spend", "10% less staff on weekends", "15 percent fewer couriers". */
const LEVER_AMOUNT_FIRST = /\b(\d+(?:\.\d+)?)\s*(?:%|percent\b)\s+(more|extra|higher|less|fewer|lower)\s+(?:of\s+)?(?:the\s+|our\s+)?(.+?)(?=\s*(?:[,;?.!]|\band\b|\bthen\b|$))/;
/** "Which marina booked the most", "what store sold the fewest", "rank the regions", "top 5 products", "compare north and south": not "what drove most of the drop", nor "compared to last year". */
const RANK = /\b(?:which|what)\b[^?.!;]*?\b(most|least|highest|lowest|fewest|biggest|largest|smallest|best|worst|top)\b(?!\s+of\b)|\brank(?:s|ed|ing)?\b|\btop\s+\d+\b|\bcompar(?:e|ing)\b(?!\s+(?:to|with)\b)/;
const LEAST = /^(least|lowest|fewest|smallest)$/;
/** "How many berths were booked", "how much did we spend", "what was the total revenue", "what is the average daily fuel use", "what was the conversion rate". */
const VALUE = /\bhow\s+(?:many|much)\b|\bwhat\s+(?:is|was|were|are)\s+(?:the\s+|our\s+)?(?:[a-z_]+\s+){0,3}?(?:total|average|mean|number|amount|sum|count|level|value|rate|ratio|share)\b/;
/** The question wants a day's figure: "average daily", "per day", "a day". */
const PER_DAY = /\b(?:average|mean)\s+daily\b|\bdaily\s+(?:average|mean)\b|\bper\s+day\b|\ba\s+day\b/;
const WHAT_IF = /\b(what\s+if|what\s+happens\s+if|what\s+would\s+happen|suppose|if\s+we|simulate)\b[^?.!;]*/;

function horizonOf(q: string): number {
  const n = /\bnext\s+(\d{1,3})\s+(day|week|month)s?\b/.exec(q);
  if (n) return Number(n[1]) * (n[2] === 'day' ? 1 : n[2] === 'week' ? 7 : 30);
  if (/\bnext\s+week\b/.test(q)) return 7;
  if (/\bnext\s+(month|30 days)\b/.test(q)) return 30;
  if (/\bnext\s+quarter\b/.test(q)) return 90;
  return 28;
}

/**
 * Reads the lever of a what-if clause. `labelValues` lists, per metric, the values each label
 * takes (from the catalog or from the series fetched); a value named in the lever's words
 * becomes a label of the lever.
 */
export function readLever(text: string, catalog: Iterable<MetricDef>, labelValues?: ReadonlyMap<string, Record<string, string[]>>): WhatIf | undefined {
  const lower = text.toLowerCase();
  const m = LEVER.exec(lower);
  const first = m ? undefined : LEVER_AMOUNT_FIRST.exec(lower);
  if (!m && !first) return undefined;
  const pct = Number(m ? m[3] : first![1]) / 100;
  const change = (m ? /cut|reduce|decrease|lower|halve|drop|trim/.test(m[1]!) : /less|fewer|lower/.test(first![2]!)) ? -pct : pct;
  const leverWords = m ? m[2]! : first![3]!;
  const defs = [...catalog];
  const metric = findMetrics(leverWords, defs)[0]?.name;
  const labels: Record<string, string> = {};
  if (metric) {
    const words = new Set(tokens(leverWords).map((t) => t.word));
    const values = { ...defs.find((d) => d.name === metric)!.labelValues, ...(labelValues?.get(metric) ?? {}) };
    for (const [label, options] of Object.entries(values)) {
      const hit = options.find((v) => v.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).every((w) => words.has(stem(w))));
      if (hit !== undefined) labels[label] = hit;
    }
  }
  return { text: (m ?? first)![0], change, ...(metric ? { metric } : {}), labels };
}

export function readQuestion(question: string, catalog: Iterable<MetricDef>, labelValues?: ReadonlyMap<string, Record<string, string[]>>): QuestionReading {
  const q = question.toLowerCase();
  const whatIfClause = WHAT_IF.exec(q)?.[0] ?? LEVER.exec(q)?.[0] ?? LEVER_AMOUNT_FIRST.exec(q)?.[0];
  const subjectText = whatIfClause ? q.replace(whatIfClause, ' ') : q;
  const down = DOWN.exec(subjectText);
  const up = UP.exec(subjectText);
  const first = down && (!up || down.index <= up.index) ? { d: 'down' as const, w: down[1]! } : up ? { d: 'up' as const, w: up[1]! } : undefined;
  const intents: Intent[] = [];
  if (/\bwhy\b|what\s+(caused|drove|happened)|explain|reason|root\s+cause|how\s+come/.test(subjectText) || first) intents.push('why');
  const whatIf = whatIfClause ? readLever(whatIfClause, catalog, labelValues) : undefined;
  if (whatIfClause) intents.push('what-if');
  const rank = RANK.exec(subjectText);
  if (rank) intents.push('rank');
  if (VALUE.test(subjectText)) intents.push('value');
  if (/\bforecast|heading|going\s+to\b|\bwill\b|\bnext\s+(week|month|quarter|\d+\s+(day|week|month)s?)\b|predict|outlook|project(ed|ion)?\b/.test(subjectText)) intents.push('forecast');
  return {
    intents,
    ...(first ? { claimed: first.d, claimWord: first.w } : {}),
    subjectText,
    ...(whatIfClause ? { whatIfRest: whatIfClause.replace(LEVER.exec(whatIfClause)?.[0] ?? LEVER_AMOUNT_FIRST.exec(whatIfClause)?.[0] ?? '', ' ') } : {}),
    ...(whatIf ? { whatIf } : {}),
    horizonDays: horizonOf(subjectText),
    ...(PER_DAY.test(subjectText) ? { perDay: true } : {}),
    ...(rank ? { rankOrder: LEAST.test(rank[1] ?? '') ? 'least' as const : rank[1] === 'best' || rank[1] === 'worst' ? rank[1] : 'most' as const } : {}),
  };
}
