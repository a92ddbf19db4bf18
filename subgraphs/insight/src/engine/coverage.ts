/**
 * What an answer covers, decided once, here: the engine sets it on every finding (`covers`), and
 * the answer's first sentence (answer.ts), the report's findings and charts
 * (report/analysis-findings.ts) and its confidence (report/analysis-confidence.ts) read it
 * rather than each working it out again from the intents and the premise.
 */
import type { Intent } from './intent.js';
import type { Premise } from './premise.js';

export interface Coverage {
  /**
   * `nothing`: nothing was analysed (no such metric, no data); `ahead`: only what lies ahead was
   * asked (a forecast or a what-if, with no "why" and no claimed move), so the answer is that
   * estimate; `move`: the period's move, its premise and its causes.
   */
  asks: 'nothing' | 'ahead' | 'move';
  /**
   * The period's move as the premise judged it, whatever was asked: `unusual` (it happened as
   * asked, outside the expected range or without one: its causes explain it), `normal` (within
   * the expected range: nothing unusual to explain, its parts only moved with it), `none` (flat,
   * or not the move the question claimed). Absent when nothing was analysed.
   */
  move?: 'unusual' | 'normal' | 'none';
}

export function coverageOf(f: { status: string; intents: readonly Intent[]; claimed?: unknown; premise?: Pick<Premise, 'verdict' | 'observed'> | undefined }): Coverage {
  if (f.status !== 'analysed' || !f.premise) return { asks: 'nothing' };
  const asksWhy = f.intents.includes('why') || f.claimed !== undefined;
  const asks = !asksWhy && (f.intents.includes('forecast') || f.intents.includes('what-if')) ? 'ahead' : 'move';
  const p = f.premise;
  const move = p.verdict === 'within-normal' ? 'normal' : p.verdict !== 'confirmed' || p.observed === 'flat' ? 'none' : 'unusual';
  return { asks, move };
}

/** A finding's coverage: as the engine set it, or (a finding stored before it did) decided the same way now. */
export function coverOf(f: Parameters<typeof coverageOf>[0] & { covers?: Coverage }): Coverage {
  return f.covers ?? coverageOf(f);
}
