/**
 * The structured result of an analysis: everything the report says, as figures the engine
 * computed. `answerFirstSentence` turns it into the judgment's first sentence.
 */
import type { Coverage } from './coverage.js';
import type { Display } from './display.js';
import type { Aggregation, Unit } from './catalog.js';
import type { Candidate } from './candidates.js';
import type { ChangePoint } from './change-point.js';
import type { DriverAttribution } from './driver-attribution.js';
import type { AlignedEvent } from './events.js';
import type { FormulaAttribution } from './formula-attribution.js';
import type { Direction, Intent, WhatIf } from './intent.js';
import type { PeriodChoice } from './periods.js';
import type { Premise } from './premise.js';
import type { Remainder } from './remainder.js';
import type { SegmentAttribution } from './segment-attribution.js';
import type { MatchHow } from './subject.js';
import type { Ranking } from './ranking.js';

/** A decomposition of the change: through a formula (or a ratio's numerator and denominator), declared drivers, or labels. */
export type View = 'formula' | 'driver' | 'segment';

export interface Cause {
  view: View;
  /** A metric name (formula, driver) or the segment's labels as `k=v, k=v`. */
  name: string;
  metric?: string;
  labels?: Record<string, string>;
  /** In the subject's unit. */
  contribution: number;
  /** contribution ÷ the subject's change. */
  share: number;
  /** p10–p90 of the contribution, when it rests on an estimate (a driver's elasticity). */
  interval?: { p10: number; p90: number };
  /** Driver lag, in days. */
  lagDays?: number;
  /** A segment's overlap with larger segment causes, counted in those (as `k=v, k=v`). */
  outside?: string[];
}

export interface SubjectInfo {
  name: string;
  /** The part of the metric the question names (label values), when it names one. */
  scope?: Record<string, string>;
  how: MatchHow | 'lever-target';
  /** Other metrics the question matched, best first. */
  others: string[];
  unit: Unit;
  aggregation: Aggregation;
  upIsGood: boolean;
  /** Catalog fields that were defaulted. */
  defaulted: string[];
}

export interface ForecastSummary {
  from: string;
  to: string;
  model: string;
  /** The horizon's total (or mean, for a metric that averages). */
  p10: number;
  p50: number;
  p90: number;
  points: { day: string; p10: number; p50: number; p90: number }[];
}

export interface WhatIfOutcome extends WhatIf {
  /** The subject's expected change over a period like the analysed one, p10–p90, when the lever is a driver of the subject. */
  effect?: { p10: number; p50: number; p90: number; elasticity: number; elasticityInterval: { p10: number; p90: number }; source: 'declared' | 'estimated' };
  /**
   * When the lever is money in the subject's currency: the lever's spend over the period, the
   * extra spend the change means, the effect per unit of it (p10–p90), and whether it pays
   * within the interval: effect − increment > 0 at p10 (a cut pays when even its largest loss,
   * the p10 effect, is smaller than the saving).
   */
  cost?: { periodSpend: number; increment: number; return: { p10: number; p50: number; p90: number }; pays: boolean };
  /** A lever that drives one of the subject's formula factors: the factor it moves, in its unit, then carried through the formula (outlook.ts `whatIfThrough`). */
  through?: { factor: string; unit: Unit; effect?: { p10: number; p50: number; p90: number } };
  /** An estimated elasticity whose 95 % interval holds zero: no effect is stated (driver-attribution.ts `isReliable`). */
  noReliableRelation?: { elasticity: number; low95: number; high95: number; observations: number; words: string };
}

/**
 * A cause followed one level down: the formula's factor that moved the subject most, and the
 * declared driver of that factor that explains most of the factor's own move, with when the
 * driver's move started.
 */
export interface RootChain {
  factor: { name: string; before: number; after: number; contribution: number; share: number };
  driver: { metric: string; labels: Record<string, string>; lagDays: number; before: number; after: number; elasticity: number; source: 'declared' | 'estimated'; shareOfFactor: number; startedOn?: string };
  /** The third link, for a driver declared as a whole: the label value that carries most of the driver's own move. */
  part?: DriverPart;
}

/** The label value of a driver declared as a whole that carries most of the driver's own move, over the lagged periods. */
export interface DriverPart {
  labels: Record<string, string>;
  before: number;
  after: number;
  shareOfDriver: number;
  startedOn?: string;
}

export interface Finding {
  question: string;
  status: 'analysed' | 'unknown-metric' | 'no-data';
  /** What the answer covers (coverage.ts): decided here once, read by the answer, the report and its confidence. */
  covers: Coverage;
  intents: Intent[];
  /** The question asks for a day's figure ("average daily", "per day"). */
  perDay?: boolean;
  claimed?: Direction;
  claimWord?: string;
  /** For `unknown-metric`: every metric of the catalog. */
  available?: string[];
  /** For `unknown-metric`: what the question asked about, and the metrics closest to it (subject.ts `askedFor`, `closestMetrics`). */
  asked?: string;
  closest?: string[];
  /** For `no-data`: which period has no data (the one asked about, or the one to compare it with). */
  missing?: 'period' | 'comparison';
  subject?: SubjectInfo;
  periods?: PeriodChoice;
  /** The subject's last days (analyse.ts CHART_DAYS; its part's, for a scope), for the report's chart. */
  history?: { t: string; value: number }[];
  premise?: Premise;
  /** When the change started. */
  changePoint?: ChangePoint;
  formula?: FormulaAttribution & { kind: 'product' | 'sum' | 'ratio' };
  drivers: DriverAttribution[];
  /** For the largest cause when it is a driver declared as a whole: the label value that moved it (the chain's next link). */
  driverPart?: DriverPart & { metric: string };
  /** Past the largest factor of the formula to the declared driver that moved it (analyse.ts `rootChain`). */
  chain?: RootChain;
  segments?: SegmentAttribution;
  /** The view whose causes come first: the decomposition that leaves the least unexplained. */
  primaryView?: View;
  /** Primary view's causes by size, then the other views'. */
  causes: Cause[];
  /** The subject's change minus the primary view's contributions. */
  remainder: Remainder;
  events: AlignedEvent[];
  candidates: Candidate[];
  forecast?: ForecastSummary;
  whatIf?: WhatIfOutcome;
  /** For a question that asks which part comes first: the subject per value of one label, ranked (ranking.ts). */
  ranking?: Ranking;
  /** Assumptions and readings worth stating (period reading, defaults, skipped stages and why). */
  notes: string[];
  /** Metrics whose labels were not examined: the caller left their leaves out (a configured limit). */
  leavesLeftOut?: string[];
  locale: string;
  /** The catalog's declared words for names (display.ts), for what a person reads. */
  display?: Display;
}
