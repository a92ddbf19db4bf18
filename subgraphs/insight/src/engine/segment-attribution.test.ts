import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { seededRandom } from '@svc/kit/random';
import { combinations } from './synthetic-series.js';
import { jsTerm, type SegmentLeaf } from './leaf-table.js';
import { attributeSegments } from './segment-attribution.js';

const leaf = (region: string, device: string, before: number, after: number): SegmentLeaf => ({ labels: { region, device }, before, after });

describe('attributeSegments: Adtributor', () => {
  const leaves = [leaf('eu', 'ios', 100, 50), leaf('eu', 'web', 100, 100), leaf('us', 'ios', 200, 200), leaf('us', 'web', 200, 200), leaf('apac', 'ios', 50, 50), leaf('apac', 'web', 50, 50)];

  it('computes explanatory power and surprise per value and ranks dimensions by surprise', () => {
    const r = attributeSegments(leaves);
    expect(r.change).toBe(-50);
    expect(r.dimensions.map((d) => [d.dimension, d.explaining, d.segments.map((s) => s.labels)])).toEqual([
      ['region', true, [{ region: 'eu' }]],
      ['device', true, [{ device: 'ios' }]],
    ]);
    const eu = r.dimensions[0]!.segments[0]!;
    expect([eu.before, eu.after, eu.contribution, eu.explanatoryPower]).toEqual([200, 150, -50, 1]);
    expect(eu.value).toEqual({ before: 200, after: 150 });
    expect(eu.surprise).toBeCloseTo(jsTerm(200 / 700, 150 / 650), 15);
    expect(eu.surprise).toBeCloseTo(0.0014640, 6);
    expect(r.dimensions[1]!.segments[0]!.surprise).toBeCloseTo(0.0003845, 6);
  });

  it('drills down inside the chosen value to the second label, and states the remainder', () => {
    const r = attributeSegments(leaves);
    expect(r.method).toBe('localization');
    expect(r.causes.map((c) => [c.labels, c.contribution, c.share])).toEqual([[{ region: 'eu', device: 'ios' }, -50, 1]]);
    expect(r.remainder).toBe(0);
  });

  it('drills down to a child holding most of its parent when the change is all in it (a 60/40 split)', () => {
    const r = attributeSegments([leaf('eu', 'ios', 120, 48), leaf('eu', 'web', 80, 80), leaf('us', 'ios', 240, 240), leaf('us', 'web', 160, 160), leaf('apac', 'ios', 60, 60), leaf('apac', 'web', 40, 40)]);
    expect(r.method).toBe('localization');
    expect(r.causes.map((c) => [c.labels, c.contribution])).toEqual([[{ region: 'eu', device: 'ios' }, -72]]);
  });

  it('keeps the first level when the change is spread over the second', () => {
    const spread = [leaf('eu', 'ios', 100, 60), leaf('eu', 'web', 100, 60), leaf('us', 'ios', 200, 200), leaf('us', 'web', 200, 201), leaf('apac', 'ios', 50, 50), leaf('apac', 'web', 50, 49)];
    const r = attributeSegments(spread);
    expect([r.method, r.causes.map((c) => c.labels)]).toEqual(['localization', [{ region: 'eu' }]]);
    expect(r.causes[0]!.contribution).toBe(-80);
    expect(r.remainder).toBe(0);
  });

  it('finds nothing when every segment moved alike, and says all of it is unexplained', () => {
    const even = leaves.map((l) => ({ ...l, after: l.before * 0.9 }));
    const r = attributeSegments(even);
    expect([r.method, r.causes]).toEqual(['none', []]);
    expect(r.remainder).toBeCloseTo(-70, 9);
  });

  it('attributes a ratio through numerator and denominator, contributions adding up to the ratio\'s change', () => {
    const ratio: SegmentLeaf[] = [
      { labels: { device: 'ios' }, before: 30, after: 30, denominatorBefore: 1000, denominatorAfter: 1000 },
      { labels: { device: 'android' }, before: 30, after: 15, denominatorBefore: 1000, denominatorAfter: 1000 },
      { labels: { device: 'web' }, before: 40, after: 40, denominatorBefore: 2000, denominatorAfter: 2000 },
    ];
    const r = attributeSegments(ratio);
    expect(r.change).toBeCloseTo(85 / 4000 - 100 / 4000, 15);
    expect(r.causes.map((c) => c.labels)).toEqual([{ device: 'android' }]);
    expect(r.causes[0]!.contribution).toBeCloseTo(r.change, 15);
    // The segment's own ratio, in the subject's unit (a percent scales by 100).
    expect(r.causes[0]!.value).toEqual({ before: 0.03, after: 0.015 });
    expect(attributeSegments(ratio, { scale: 100 }).causes[0]!.value).toEqual({ before: 3, after: 1.5 });
  });
});

describe('attributeSegments: combinations (Squeeze-style)', () => {
  const dims = { dc: ['d1', 'd2', 'd3'], province: ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'], isp: ['i1', 'i2', 'i3', 'i4', 'i5'], channel: ['c1', 'c2'] };

  it('finds the province × ISP pairs when no single label explains the change', () => {
    const random = seededRandom(5);
    const leaves = combinations(dims).map((labels) => {
      const before = 1000 * (0.5 + random());
      const hit = labels.province!.slice(1) === labels.isp!.slice(1);
      return { labels, before, after: before * (hit ? 0.5 : 1 + 0.01 * (random() - 0.5)) };
    });
    const r = attributeSegments(leaves);
    expect(r.method).toBe('localization');
    expect(r.causes.map((c) => `${c.labels.province}/${c.labels.isp}`).sort()).toEqual(['p1/i1', 'p2/i2', 'p3/i3', 'p4/i4', 'p5/i5']);
    expect(r.causes.every((c) => Object.keys(c.labels).length === 2)).toBe(true);
    const planted = leaves.filter((l) => l.labels.province!.slice(1) === l.labels.isp!.slice(1)).reduce((a, l) => a + l.after - l.before, 0);
    expect(r.causes.reduce((a, c) => a + c.contribution, 0)).toBeCloseTo(planted, 6);
    expect(Math.abs(r.remainder)).toBeLessThan(0.02 * Math.abs(r.change));
  });

  // Its time is measured in bench/insight-engine.js, not asserted here.
  it('finds a province × ISP pair among 25,000 leaves of 4 labels', () => {
    const big = { dc: ['d1', 'd2', 'd3', 'd4', 'd5'], province: Array.from({ length: 25 }, (_, i) => `p${i}`), isp: Array.from({ length: 10 }, (_, i) => `i${i}`), channel: Array.from({ length: 20 }, (_, i) => `c${i}`) };
    const random = seededRandom(9);
    const leaves = combinations(big).map((labels) => {
      const before = 100 * (0.5 + random());
      const hit = labels.province === 'p7' && labels.isp === 'i3';
      return { labels, before, after: before * (hit ? 0.3 : 1 + 0.02 * (random() - 0.5)) };
    });
    expect(leaves.length).toBe(25_000);
    const r = attributeSegments(leaves);
    expect(r.causes[0]!.labels).toEqual({ province: 'p7', isp: 'i3' });
    expect(r.causes[0]!.share).toBeGreaterThan(0.95);
  });
});

describe('a change spread evenly', () => {
  const leaves = (drop: (labels: Record<string, string>) => number) => {
    const out: SegmentLeaf[] = [];
    let k = 0;
    for (const depot of ['north', 'south', 'east', 'west']) for (const carrier of ['c1', 'c2', 'c3']) for (const size of ['small', 'large']) {
      const before = 100 + ((k++ * 37) % 60);
      out.push({ labels: { depot, carrier, size }, before, after: before * drop({ depot, carrier, size }) });
    }
    return out;
  };

  it('is named, with the range of the parts\' changes, when every part fell by about the same share', () => {
    let k = 0;
    const a = attributeSegments(leaves(() => 0.85 + 0.01 * ((k++ % 5) - 2)));
    expect(a.causes).toEqual([]);
    expect(a.even).toEqual({ dimensions: ['carrier', 'depot', 'size'], low: expect.any(Number), high: expect.any(Number) });
    expect(a.even!.low).toBeGreaterThan(-0.18);
    expect(a.even!.high).toBeLessThan(-0.12);
  });

  it('is not claimed when one part fell and the rest held', () => {
    const a = attributeSegments(leaves((l) => (l.depot === 'east' ? 0.4 : 1)));
    expect(a.even).toBeUndefined();
    expect(a.causes.map((c) => c.labels)).toEqual([{ depot: 'east' }]);
  });

  it('is not claimed when the parts moved apart, some up and some down', () => {
    const a = attributeSegments(leaves((l) => (l.carrier === 'c1' ? 1.1 : l.carrier === 'c2' ? 0.8 : 0.75)));
    expect(a.even).toBeUndefined();
  });
});

describe('several causes at once', () => {
  const grid = (drop: (l: Record<string, string>) => number) => {
    const out: SegmentLeaf[] = [];
    let k = 0;
    for (const product of ['pa', 'pb', 'pc', 'pd', 'pe']) for (const zone of ['z1', 'z2', 'z3', 'z4', 'z5', 'z6']) for (const device of ['web', 'app']) {
      const before = 200 + ((k++ * 53) % 90);
      out.push({ labels: { product, zone, device }, before, after: before * drop({ product, zone, device }) });
    }
    return out;
  };

  it('names a cause in each of two dimensions, the overlap counted once in the first', () => {
    const a = attributeSegments(grid((l) => (l.zone === 'z4' ? 0 : 1) * (l.product === 'pb' ? 0.38 : 1)));
    const named = a.causes.map((c) => JSON.stringify(c.labels));
    expect(named).toContain(JSON.stringify({ product: 'pb' }));
    expect(named).toContain(JSON.stringify({ zone: 'z4' }));
    // Disjoint: together they hold the whole fall, never more.
    const sum = a.causes.reduce((s, c) => s + c.contribution, 0);
    expect(sum + a.remainder).toBeCloseTo(a.change, 6);
    expect(Math.abs(a.remainder)).toBeLessThan(0.05 * Math.abs(a.change));
    expect(sum).toBeGreaterThanOrEqual(a.change - 1e-6);
  });

  it('says what a second cause found outside the first is outside of, on Adtributor\'s path too', () => {
    const a = attributeSegments(grid((l) => (l.zone === 'z4' ? 0 : 1) * (l.zone === 'z2' ? 0.2 : 1) * (l.product === 'pb' ? 0.2 : 1)));
    expect(a.method).toBe('localization');
    expect(a.causes.map((c) => [c.labels, c.outside ?? []])).toEqual([[{ zone: 'z4' }, []], [{ zone: 'z2' }, []], [{ product: 'pb' }, [{ zone: 'z4' }, { zone: 'z2' }]]]);
    expect(a.causes.reduce((s, c) => s + c.contribution, 0) + a.remainder).toBeCloseTo(a.change, 6);
  });

  it('adds up, whatever falls: the causes and the rest make the change, and disjoint causes never hold more than the whole fall', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.constantFrom('product', 'zone', 'device'), fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 0.9, noNaN: true })), { minLength: 1, maxLength: 3 }),
      (plants) => {
        const values = { product: ['pa', 'pb', 'pc', 'pd', 'pe'], zone: ['z1', 'z2', 'z3', 'z4', 'z5', 'z6'], device: ['web', 'app'] } as Record<string, string[]>;
        const a = attributeSegments(grid((l) => plants.reduce((m, [dim, i, keep]) => (l[dim] === values[dim]![i % values[dim]!.length] ? m * keep : m), 1)));
        if (a.change === 0) return;
        const sum = a.causes.reduce((s, c) => s + c.contribution, 0);
        expect(sum + a.remainder).toBeCloseTo(a.change, 6);
        // Every leaf fell or held: no cause rises, and together they cannot fall by more than the whole did.
        for (const c of a.causes) expect(c.contribution).toBeLessThanOrEqual(1e-9);
        expect(sum).toBeGreaterThanOrEqual(a.change - 1e-6 * Math.abs(a.change));
      },
    ), { numRuns: 200, seed: 32 });
  });
});
