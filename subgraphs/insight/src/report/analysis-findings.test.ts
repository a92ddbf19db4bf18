import { describe, expect, it } from '@jest/globals';
import type { ToolOutcome } from './composed.js';
import { analyse } from '../engine/analyse.js';
import type { CatalogEntry } from '../engine/catalog.js';
import { addDays } from '../engine/days.js';
import { narrate } from '../engine/narrative.js';
import { generateDaily, generateLeaves, totalOf } from '../engine/synthetic-series.js';
import { figuresOf } from '../domain/report.js';
import { analysisFindings, analysisProposals } from './analysis-findings.js';
import type { Composed } from './composed.js';

/** Proposals that follow from the engine's findings, on planted causes with names the demo never had. */

const now = Date.parse('2026-11-18T10:00:00Z');
const start = addDays('2026-11-17', -399);
const compose = () => ({ findings: [], evidence: [], charts: [], actions: [] }) as Composed;
const outcome = (finding: ReturnType<typeof analyse>): ToolOutcome<'analyse_change'> => ({ step: 5, tool: 'analyse_change', data: { ...narrate(finding), finding, history: [] }, summary: '' });

describe('proposals from findings', () => {
  it('restores the content version published the day a fall started, with its site, version and impact', () => {
    const points = generateDaily({ start, days: 400, level: 3000, seed: 91 }, (d) => (d >= '2026-11-12' ? 0.75 : 1));
    const events = [{ at: '2026-11-12T09:30:00Z', kind: 'content_published', title: 'Version 7 of "pricing" (site shop) published', ref: 'content:shop:c-42:v7' }];
    const finding = analyse({ question: 'Why did signups drop last week?', catalog: [{ name: 'signups' }], series: [{ name: 'signups', labels: {}, points }], events, now });
    const c = compose();
    analysisFindings(c, outcome(finding));
    expect(analysisProposals(c, outcome(finding))).toBeUndefined();
    expect(c.actions).toEqual([
      expect.objectContaining({
        kind: 'CONTENT_RESTORE', targetType: 'Content', targetId: 'c-42', params: { siteKey: 'shop', version: 6 },
        expectedImpact: expect.objectContaining({ metric: 'signups', p10: 0, method: expect.stringContaining('restoring') }),
      }),
    ]);
    expect(c.actions[0]!.expectedImpact!.p90).toBeCloseTo(-finding.premise!.change, 6);
    expect(c.charts.find((chart) => chart.kind === 'WATERFALL')!.bars!.map((b) => b.kind)).toEqual(['start', 'remainder', 'end']);
  });

  it('hands off a what-if on money that pays, and says so when it does not', () => {
    // Bookings in EUR driven by marketing spend in EUR with a planted elasticity of 0.5.
    const spend = generateDaily({ start, days: 400, level: 1000, seed: 7, noise: 0.15 });
    const bookings = spend.map((p, i) => ({ t: p.t, value: 20_000 * (p.value / 1000) ** 0.5 * (1 + 0.01 * Math.sin(i)) }));
    const catalog: CatalogEntry[] = [
      { name: 'bookings', unit: { kind: 'currency', code: 'EUR' }, drivers: [{ metric: 'marketing_spend' }] },
      { name: 'marketing_spend', unit: { kind: 'currency', code: 'EUR' } },
    ];
    const series = [{ name: 'bookings', labels: {}, points: bookings }, { name: 'marketing_spend', labels: {}, points: spend }];
    const pays = analyse({ question: 'What if we increase marketing spend by 10%? How did bookings do last week?', catalog, series, now });
    expect(pays.whatIf?.cost?.pays).toBe(true);
    const c = compose();
    analysisFindings(c, outcome(pays));
    expect(analysisProposals(c, outcome(pays))).toBeUndefined();
    expect(c.actions).toEqual([expect.objectContaining({ kind: 'EXTERNAL', targetType: 'External', params: expect.objectContaining({ change: { metric: 'marketing_spend', labels: {}, changePercent: 10 } }) })]);

    const costly = [{ name: 'bookings', labels: {}, points: spend.map((p) => ({ t: p.t, value: 1100 * (p.value / 1000) ** 0.5 })) }, series[1]!];
    const not = analyse({ question: 'What if we increase marketing spend by 10%? How did bookings do last week?', catalog, series: costly, now });
    expect(not.whatIf?.cost?.pays).toBe(false);
    const d = compose();
    expect(analysisProposals(d, outcome(not))).toMatch(/^No change to marketing_spend is proposed: it does not pay/);
    expect(d.actions).toEqual([]);
  });

  it('proposes nothing for a segment that fell, which is no lever', () => {
    const leaves = generateLeaves('orders', { region: ['north', 'south', 'east'] }, { start, days: 400, level: 9000, seed: 3 }, (labels, day) => (labels.region === 'north' && day >= '2026-11-10' ? 0.5 : 1));
    const finding = analyse({ question: 'Why did orders fall last week?', catalog: [{ name: 'orders', labels: ['region'] }], series: [totalOf('orders', leaves), ...leaves], now });
    expect(finding.causes[0]!.view).toBe('segment');
    const c = compose();
    analysisFindings(c, outcome(finding));
    expect(analysisProposals(c, outcome(finding))).toBeUndefined();
    expect(c.actions).toEqual([]);
  });

  it('brings a money driver back only when it pays within the interval, and states its cost', () => {
    // Fees in EUR driven by partner spend in EUR (elasticity 0.8 declared); the spend was halved from 9 Nov.
    const spend = generateDaily({ start, days: 400, level: 1000, seed: 7, noise: 0.05 }, (d) => (d >= '2026-11-09' ? 0.5 : 1));
    const catalog: CatalogEntry[] = [
      { name: 'fees', unit: { kind: 'currency', code: 'EUR' }, drivers: [{ metric: 'partner_spend', elasticity: 0.8 }] },
      { name: 'partner_spend', unit: { kind: 'currency', code: 'EUR' }, upIsGood: false },
    ];
    const feesAt = (level: number) => spend.map((p, i) => ({ t: p.t, value: level * (p.value / 1000) ** 0.8 * (1 + 0.005 * Math.sin(i)) }));
    const ask = (level: number) => analyse({ question: 'Why did fees drop last week?', catalog, series: [{ name: 'fees', labels: {}, points: feesAt(level) }, { name: 'partner_spend', labels: {}, points: spend }], now });

    const paying = ask(20_000);
    const c = compose();
    analysisFindings(c, outcome(paying));
    expect(analysisProposals(c, outcome(paying))).toBeUndefined();
    expect(c.actions).toEqual([expect.objectContaining({ kind: 'EXTERNAL', params: expect.objectContaining({ change: expect.objectContaining({ metric: 'partner_spend' }) }) })]);
    expect(c.actions[0]!.rationale).toMatch(/it costs about €[\d,]+ more over the period for about €[\d,]+ back \([\d.]+ per unit spent, at least [\d.]+ at p10\), so it pays within the interval\.$/);

    const costly = ask(1_000);
    const d = compose();
    analysisFindings(d, outcome(costly));
    expect(analysisProposals(d, outcome(costly))).toMatch(/^Bringing partner_spend back is not proposed: it costs about €[\d,]+ more .* so it does not pay within the interval\.$/);
    expect(d.actions).toEqual([]);
  });
});

describe('the judgment', () => {
  it('says a move within the normal range is normal, leaving its parts to the findings', () => {
    // Parcels driven by courier spend (elasticity 0.4); last week is an ordinary week.
    const spend = generateDaily({ start, days: 400, level: 700, seed: 23, noise: 0.2 });
    const parcels = spend.map((p, i) => ({ t: p.t, value: 3_000 * (p.value / 700) ** 0.4 * (1 + 0.03 * Math.sin(i / 2)) }));
    const catalog: CatalogEntry[] = [{ name: 'parcels', drivers: [{ metric: 'courier_spend' }] }, { name: 'courier_spend', unit: { kind: 'currency', code: 'EUR' } }];
    const finding = analyse({ question: 'Why did parcels change last week?', catalog, series: [{ name: 'parcels', labels: {}, points: parcels }, { name: 'courier_spend', labels: {}, points: spend }], now });
    expect(finding.premise?.verdict).toBe('within-normal');
    const narrative = narrate(finding);
    expect(narrative.statements.map((st) => st.topic)).toContain('cause');
    const c = compose();
    const judgment = analysisFindings(c, outcome(finding));
    expect(judgment).toBe(`${narrative.answer} A move within the normal range needs no cause; the findings show what moved with it.`);
    expect(c.findings.map((x) => x.detail)).toEqual([narrative.answer, ...narrative.statements.map((st) => st.text)]);
    expect(c.findings.filter((x) => x.detail.includes('courier_spend')).map((x) => x.title)).toEqual(['Moved with it']);
    expect(c.findings.map((x) => x.title)).not.toContain('A cause');
  });


  it('answers a question only about a what-if with it; why the metric moved stays in the findings', () => {
    // Footfall driven by flyer spend (elasticity 0.3), with a planted fall last week that the question does not ask about.
    const flyers = generateDaily({ start, days: 400, level: 500, seed: 5, noise: 0.2 });
    const footfall = flyers.map((p, i) => ({ t: p.t, value: 8_000 * (p.value / 500) ** 0.3 * (i >= 393 ? 0.8 : 1) * (1 + 0.02 * Math.sin(i)) }));
    const catalog: CatalogEntry[] = [{ name: 'footfall', drivers: [{ metric: 'flyer_spend' }] }, { name: 'flyer_spend', unit: { kind: 'currency', code: 'GBP' } }];
    const series = [{ name: 'footfall', labels: {}, points: footfall }, { name: 'flyer_spend', labels: {}, points: flyers }];
    const finding = analyse({ question: 'What if we raise flyer spend by 30%?', catalog, series, now });
    expect(finding.whatIf?.effect).toBeDefined();
    const narrative = narrate(finding);
    expect(narrative.statements.map((st) => st.topic)).toContain('range');
    const c = compose();
    const judgment = analysisFindings(c, outcome(finding));
    expect(judgment.startsWith(narrative.answer)).toBe(true);
    for (const st of narrative.statements) if (['range', 'start', 'cause', 'remainder', 'candidate'].includes(st.topic)) expect(judgment).not.toContain(st.text);
    expect(c.findings.map((x) => x.detail)).toEqual([narrative.answer, ...narrative.statements.map((st) => st.text)]);
    // Asked why as well, the same analysis tells why too.
    const both = analyse({ question: 'Why did footfall drop last week, and what if we raise flyer spend by 30%?', catalog, series, now });
    const d = compose();
    expect(analysisFindings(d, outcome(both))).toContain(narrate(both).statements.find((st) => st.topic === 'remainder')!.text);
  });


  it('gives the answer, then only the statements that add a figure or an event to it; the findings keep every statement', () => {
    // Planted: conversions fall by a fifth from the day a page version was published, through one segment.
    const leaves = generateLeaves('conversions', { market: ['nordics', 'iberia', 'benelux'] }, { start, days: 400, level: 4000, seed: 29 }, (labels, day) => (labels.market === 'iberia' && day >= '2026-11-12' ? 0.4 : 1));
    const events = [{ at: '2026-11-12T08:00:00Z', kind: 'content_published', title: 'Version 3 of "checkout" (site eu) published', ref: 'content:eu:c-9:v3' }];
    const finding = analyse({ question: 'Why did conversions drop last week?', catalog: [{ name: 'conversions', labels: ['market'] }], series: [...leaves, totalOf('conversions', leaves)], events, now });
    expect(finding.status).toBe('analysed');
    const narrative = narrate(finding);
    const c = compose();
    const judgment = analysisFindings(c, outcome(finding));

    expect(judgment.startsWith(narrative.answer)).toBe(true);
    const facts = (text: string) => [...figuresOf(text), ...(text.match(/“[^”]*”/g) ?? [])];
    const told = new Set(facts(narrative.answer));
    const repeating = narrative.statements.filter((st) => facts(st.text).length > 0 && facts(st.text).every((x) => told.has(x)));
    // The answer names the range, the start with its event and the largest cause: those statements repeat it.
    expect(repeating.map((st) => st.topic)).toEqual(expect.arrayContaining(['range', 'start']));
    for (const st of narrative.statements) expect(judgment.includes(st.text)).toBe(!repeating.includes(st));
    // Nothing is lost: every figure and event of the statements is in the judgment, and every statement is a finding.
    const inJudgment = new Set(facts(judgment));
    for (const st of narrative.statements) for (const x of facts(st.text)) expect(inJudgment.has(x)).toBe(true);
    expect(c.findings.map((x) => x.detail)).toEqual([narrative.answer, ...narrative.statements.map((st) => st.text)]);
  });
});
