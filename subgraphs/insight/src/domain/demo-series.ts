import type { MetricDefinition } from './metric-definition.js';
import type { Labels, Point } from './metric.js';

/**
 * The embedded demo's business: two years of daily figures of an online shop, generated
 * from a seed so every fresh platform analyses the same story. The series are causally
 * linked, so an analysis has something real to find: ad spend per channel moves in campaign
 * bursts and drives sessions (elasticities 0.25 search, 0.12 social, 0.05 display), sessions
 * times conversion rate (orders ÷ sessions) times average order value (revenue ÷ orders) is
 * revenue, day by day and over any period, and
 * everything has a trend, a weekly and a yearly season, and noise. Newsletter sign-ups stand
 * apart. Seeded, the story (kit's `demoStory`) plants two falls last week, each on the day a
 * page version went live: the conversion rate from Tuesday (pricing), sign-ups from Friday
 * (newsletter page).
 */

export interface DemoSeries {
  name: string;
  labels: Labels;
  unit: string;
  points: Point[];
}

export const DEMO_DAYS = 730;

/**
 * The falls the demo's story plants (kit's `demoStory`): from the day a page version went live,
 * the conversion rate (pricing) and newsletter sign-ups (newsletter page) drop by these factors.
 */
export interface DemoFalls {
  conversionFrom: Date;
  signupsFrom: Date;
}
export const DEMO_FALLS = { conversion: 0.78, signups: 0.6 } as const;
export const DEMO_CHANNELS = { search: { base: 600, elasticity: 0.25 }, social: { base: 700, elasticity: 0.12 }, display: { base: 400, elasticity: 0.05 } } as const;

const DAY = 86_400_000;
/** Weekly shape, Monday first: a shop sells most on Monday and least on Saturday. */
const WEEKDAY = [1.12, 1.06, 1.03, 1.0, 0.97, 0.86, 0.96];

function gaussian(random: () => number): number {
  const u = Math.max(random(), Number.MIN_VALUE);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/**
 * The demo series ending on the UTC day before `end` (so "last week" is real in a demo),
 * `DEMO_DAYS` days long. `random` is a seeded uniform source; `falls` plants the story's falls.
 */
export function demoSeries(end: Date, random: () => number, falls?: DemoFalls): DemoSeries[] {
  const from = (d: Date | undefined) => (d ? Math.floor(d.getTime() / DAY) * DAY : Number.POSITIVE_INFINITY);
  const conversionFrom = from(falls?.conversionFrom);
  const signupsFrom = from(falls?.signupsFrom);
  const last = Math.floor(end.getTime() / DAY) * DAY - DAY;
  const first = last - (DEMO_DAYS - 1) * DAY;
  const channels = Object.keys(DEMO_CHANNELS) as (keyof typeof DEMO_CHANNELS)[];
  const spend: Record<string, Point[]> = Object.fromEntries(channels.map((c) => [c, []]));
  const sessions: Point[] = [];
  const conversion: Point[] = [];
  const revenue: Point[] = [];
  const orders: Point[] = [];
  const orderValues: Point[] = [];
  // Campaign bursts: each channel keeps a spending level for 1 to 4 weeks, then changes it.
  const level = Object.fromEntries(channels.map((c) => [c, 1])) as Record<string, number>;
  const until = Object.fromEntries(channels.map((c) => [c, 0])) as Record<string, number>;
  for (let i = 0; i < DEMO_DAYS; i++) {
    const t = first + i * DAY;
    const weekday = WEEKDAY[(new Date(t).getUTCDay() + 6) % 7]!;
    const yearly = 1 + 0.12 * Math.sin((2 * Math.PI * (i + 300)) / 365.25);
    const trend = 1 + (0.35 * i) / DEMO_DAYS;
    let drive = 1;
    for (const c of channels) {
      if (i >= until[c]!) {
        level[c] = 0.75 + 0.5 * random();
        until[c] = i + 7 + Math.floor(random() * 22);
      }
      const { base, elasticity } = DEMO_CHANNELS[c];
      const ratio = level[c]! * trend * (1 + 0.08 * gaussian(random));
      spend[c]!.push({ t, value: round(Math.max(0, base * ratio), 2) });
      drive *= Math.max(ratio / trend, 0.05) ** elasticity;
    }
    const visits = 4000 * trend * weekday * yearly * drive * (1 + 0.04 * gaussian(random));
    const rate = 0.031 * (1 + 0.05 * Math.sin((2 * Math.PI * (i + 330)) / 365.25)) * (1 + 0.03 * gaussian(random)) * (t >= conversionFrom ? DEMO_FALLS.conversion : 1);
    const orderValue = round(62 * (1 + 0.02 * gaussian(random)), 2);
    // Whole orders; the rate and the order value are what the counts say, so that revenue is
    // sessions × conversion rate × average order value day by day and over any period.
    const count = Math.round(visits);
    const placed = Math.max(1, Math.round(count * rate));
    const sales = round(placed * orderValue, 2);
    sessions.push({ t, value: count });
    orders.push({ t, value: placed });
    conversion.push({ t, value: placed / count });
    orderValues.push({ t, value: sales / placed });
    revenue.push({ t, value: sales });
  }
  // Newsletter sign-ups: drawn after the shop's figures, so adding them changed none of those.
  const signups: Point[] = [];
  for (let i = 0; i < DEMO_DAYS; i++) {
    const t = first + i * DAY;
    const weekday = WEEKDAY[(new Date(t).getUTCDay() + 6) % 7]!;
    const trend = 1 + (0.35 * i) / DEMO_DAYS;
    signups.push({ t, value: Math.max(0, Math.round(140 * trend * weekday * (1 + 0.06 * gaussian(random)) * (t >= signupsFrom ? DEMO_FALLS.signups : 1))) });
  }
  return [
    { name: 'revenue', labels: {}, unit: 'USD', points: revenue },
    { name: 'sessions', labels: {}, unit: 'visits', points: sessions },
    { name: 'orders', labels: {}, unit: 'orders', points: orders },
    { name: 'conversion_rate', labels: {}, unit: 'ratio', points: conversion },
    { name: 'average_order_value', labels: {}, unit: 'USD', points: orderValues },
    ...channels.map((c) => ({ name: 'ad_spend', labels: { channel: c }, unit: 'USD', points: spend[c]! })),
    { name: 'newsletter_signups', labels: {}, unit: 'sign-ups', points: signups },
  ];
}

/**
 * What the demo shop's metrics mean, seeded with its series: revenue is sessions × conversion
 * rate × average order value, where the rate is orders ÷ sessions and the order value revenue ÷
 * orders over any period (so the formula holds exactly for a week as for a day), sessions are driven by
 * each channel's ad spend (the same day: the seed's campaigns act at once, so the declared lag is
 * 0), and each has its unit, direction and everyday words.
 */
export const DEMO_DEFINITIONS: { name: string; definition: MetricDefinition }[] = [
  {
    name: 'revenue',
    definition: {
      unit: { kind: 'currency', code: 'USD' }, aggregation: 'sum', upIsGood: true,
      formula: { product: ['sessions', 'conversion_rate', 'average_order_value'] },
      synonyms: ['sales', 'income', 'turnover'], description: 'Order revenue of the online shop per day',
    },
  },
  {
    name: 'sessions',
    definition: {
      unit: { kind: 'count', noun: 'sessions' }, aggregation: 'sum', upIsGood: true,
      drivers: (Object.keys(DEMO_CHANNELS) as (keyof typeof DEMO_CHANNELS)[]).map((channel) => ({ metric: 'ad_spend', labels: { channel }, lagDays: 0 })),
      synonyms: ['traffic', 'visits', 'visitors'], description: 'Visits to the shop per day',
    },
  },
  { name: 'orders', definition: { unit: { kind: 'count', noun: 'orders' }, aggregation: 'sum', upIsGood: true, synonyms: ['purchases'], description: 'Orders placed per day' } },
  {
    name: 'conversion_rate',
    definition: { unit: { kind: 'ratio' }, aggregation: { ratio: { numerator: 'orders', denominator: 'sessions' } }, upIsGood: true, synonyms: ['conversion'], description: 'Orders per session', display: { name: 'conversion rate' } },
  },
  {
    name: 'average_order_value',
    definition: { unit: { kind: 'currency', code: 'USD' }, aggregation: { ratio: { numerator: 'revenue', denominator: 'orders' } }, upIsGood: true, synonyms: ['aov', 'basket size', 'order value'], description: 'Revenue per order', display: { name: 'average order value' } },
  },
  { name: 'ad_spend', definition: { unit: { kind: 'currency', code: 'USD' }, aggregation: 'sum', upIsGood: false, synonyms: ['advertising', 'ad costs', 'marketing spend'], description: 'Advertising spend per channel (search, social, display) per day', display: { name: 'ad spend', labels: { channel: 'channel' }, values: { channel: { search: 'search ads', social: 'social ads', display: 'display ads' } } } } },
  {
    name: 'newsletter_signups',
    definition: { unit: { kind: 'count', noun: 'sign-ups' }, aggregation: 'sum', upIsGood: true, synonyms: ['signups', 'sign-ups', 'subscribers', 'newsletter subscriptions'], description: 'Newsletter sign-ups per day, from the newsletter page', display: { name: 'newsletter sign-ups' } },
  },
];
