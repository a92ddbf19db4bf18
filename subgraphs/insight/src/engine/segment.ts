/** A segment of the subject (a set of label values) and its part in the change. */
export interface Segment {
  labels: Record<string, string>;
  /** The additive measure (a ratio's numerator) in the comparison period and in the period. */
  before: number;
  after: number;
  /**
   * The segment's own value in the subject's unit, before and after: its total for an additive
   * metric, its own ratio (numerator ÷ denominator, scaled like the subject) for a ratio.
   * Absent on findings written before it existed.
   */
  value?: { before: number; after: number };
  /** In the subject's unit: the part of the subject's change this segment accounts for. */
  contribution: number;
  /** contribution ÷ the subject's change. */
  share: number;
  /** Explanatory power within the scope it was chosen in (the whole, or its parent segment). */
  explanatoryPower: number;
  surprise: number;
  /** The second level, when the parent's change sits in a few of its sub-segments. */
  children: Segment[];
  /** Larger causes it overlaps, whose shared leaves are counted there, not here (segment-attribution.ts `disjoint`). */
  outside?: Record<string, string>[];
}
