import type { ActionKind, ExpectedImpact, ProposalFinding, TargetType } from './action.js';

export type { ProposalFinding } from './action.js';

/** Where a finding's figures come from; `step` is the job step holding the tool result. */
export type Evidence =
  | { kind: 'METRIC'; step: number; metric: string; labels: Record<string, string>; from: string; to: string; summary: string }
  | { kind: 'FORECAST'; step: number; metric: string; labels: Record<string, string>; horizon: number; summary: string }
  | { kind: 'SIMULATION'; step: number; metric: string; driver: string; changePercent: number; horizon: number; summary: string }
  | { kind: 'KNOWLEDGE'; step: number; crawlItemId: string; url: string; title: string; excerpt: string }
  | { kind: 'CONTENT'; step: number; contentId: string; siteKey: string; slug: string; title: string }
  | { kind: 'BUDGET'; step: number; agentCode: string; summary: string }
  | { kind: 'ANALYSIS'; step: number; metric: string; from: string; to: string; summary: string };

export interface Finding {
  title: string;
  detail: string;
  /** Indexes into the report's evidence. */
  evidence: number[];
}

/**
 * A chart the dashboard draws: a series with its history (the analysed period shaded, events
 * marked), a band for forecasts and what-ifs, or a waterfall from the comparison value through
 * each cause and the unexplained rest to the period's value.
 */
export interface Chart {
  title: string;
  step: number;
  kind: 'SERIES' | 'FORECAST' | 'SIMULATION' | 'WATERFALL';
  unit: string | null;
  history: { t: string; value: number }[];
  band?: { t: string; p10: number; p50: number; p90: number }[];
  /** The analysed period, first and last day. */
  period?: { from: string; to: string };
  /** Events on the timeline: day and title. */
  markers?: { t: string; label: string }[];
  /** WATERFALL: start, one bar per cause, the remainder, end; each with its formatted value. */
  bars?: { label: string; value: number; kind: 'start' | 'cause' | 'remainder' | 'end'; text: string }[];
}

/** A period of a segment table: its first and last day, and as a reader sees it (`Mon 9 – Sun 15 Nov`). */
export interface TablePeriod {
  from: string;
  to: string;
  text: string;
}

/** One row of a segment table: a segment the engine found, or (last) the change of all the segments not listed. */
export interface SegmentRow {
  kind: 'SEGMENT' | 'REMAINDER';
  /** The segment's labels as `k=v, k=v`; `all other segments` for the last row. */
  label: string;
  /** Empty for the remainder. */
  labels: Record<string, string>;
  /** The segment's value in the comparison period and in the period (null for the remainder). */
  before: number | null;
  after: number | null;
  /** Its part of the subject's change, in the subject's unit. */
  contribution: number;
  /** contribution ÷ the subject's change. */
  share: number;
  /** Adtributor's explanatory power and surprise as the engine computed them (null for the remainder). */
  explanatoryPower: number | null;
  surprise: number | null;
  /** Each figure as the report prints it (unit and locale); null where the figure is. */
  text: { before: string | null; after: string | null; contribution: string; share: string; explanatoryPower: string | null; surprise: string | null };
}

/**
 * The drill-down of a change through the subject's labels: the segments the engine's attribution
 * found, ranked by the size of their contribution, and the unexplained rest as the last row, so
 * the contributions and the rest add up to the change.
 */
export interface SegmentTable {
  title: string;
  /** The job step holding the analysis. */
  step: number;
  metric: string;
  unit: string | null;
  /** How the segments were found: `localization`; reports written before it say `adtributor`, `adtributor+drill-down` or `combination-search`. */
  method: string;
  /** What before and after are: each segment's `TOTAL` (an additive metric) or its own `RATIO`. */
  values: 'TOTAL' | 'RATIO';
  period: TablePeriod;
  comparison: TablePeriod;
  /** The subject's change over the period; the shares are of it. */
  change: number;
  changeText: string;
  rows: SegmentRow[];
}

export interface Report {
  judgment: string;
  /** `model` when the model's own judgment passed the grounding check, else `composed` from the findings. */
  judgmentSource: 'model' | 'composed';
  findings: Finding[];
  evidence: Evidence[];
  confidence: { value: number; reason: string };
  charts: Chart[];
  /** Drill-down tables of segments, one per analysis that found segments (absent on reports stored before them). */
  segmentTables?: SegmentTable[];
}

export interface ProposedAction {
  kind: ActionKind;
  title: string;
  rationale: string;
  targetType: TargetType;
  targetId: string;
  /** The target in the report's words, for a person (report/target-name.ts); absent when nothing the analysis read names it. */
  targetName?: string | undefined;
  params: Record<string, unknown>;
  expectedImpact: ExpectedImpact | null;
  /** Whether the change can be undone (default: the kind's, see ACTION_KINDS). */
  undoable?: boolean | undefined;
  /** How to undo it, in words (default: the kind's). */
  undo?: string | undefined;
  /** The report finding it follows from. */
  finding?: ProposalFinding | undefined;
}


/**
 * The figures of a text: numbers as written (1,234.5 → 1234.5; 12% → 12). Used by the
 * grounding check: every figure of a report must appear in a tool result.
 */
export function figuresOf(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/(?<![\w.])-?\d[\d,]*(?:\.\d+)?/g)) {
    const plain = match[0].replace(/,/g, '');
    // Years are dates, not figures; an amount written with a grouping comma (2,146) is no year.
    if (!/\d,\d/.test(match[0]) && /^-?\d{4}$/.test(plain) && Number(plain) >= 1900 && Number(plain) <= 2200) continue;
    out.push(plain.replace(/^-/, ''));
  }
  return out;
}

/** Figures of `text` that appear in none of `sources` (tool results as text). */
export function ungroundedFigures(text: string, sources: readonly string[]): string[] {
  const known = new Set(sources.flatMap(figuresOf));
  return figuresOf(text).filter((f) => !known.has(f) && !known.has(String(Number(f))));
}
