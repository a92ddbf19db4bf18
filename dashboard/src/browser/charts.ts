import type UPlot from 'uplot';
import { h } from './dom.js';

// uPlot is loaded by its own script tag (served from node_modules by the dashboard server).
declare const uPlot: typeof UPlot;

export interface Chart {
  title: string;
  step: number;
  kind: 'SERIES' | 'FORECAST' | 'SIMULATION';
  unit: string | null;
  history: { t: string; value: number }[];
  band?: { t: string; p10: number; p50: number; p90: number }[];
}

const seconds = (iso: string) => Date.parse(iso) / 1000;

/**
 * One report chart: the metric's history as a line, and for a forecast or a what-if its fan
 * (the p10–p90 band filled around the p50 line) continuing it.
 */
export function drawChart(chart: Chart, width: number): HTMLElement {
  const box = h('figure', { class: 'chart', 'data-kind': chart.kind }, h('h3', {}, `${chart.title}${chart.unit ? ` (${chart.unit})` : ''}`));
  const band = chart.band ?? [];
  const times = [...chart.history.map((p) => seconds(p.t)), ...band.map((p) => seconds(p.t))];
  const pad = (values: (number | null)[], before: number, after: number) => [...Array<null>(before).fill(null), ...values, ...Array<null>(after).fill(null)];
  const history = pad(chart.history.map((p) => p.value), 0, band.length);
  const data: UPlot.AlignedData = band.length
    ? [times, history, pad(band.map((p) => p.p10), chart.history.length, 0), pad(band.map((p) => p.p50), chart.history.length, 0), pad(band.map((p) => p.p90), chart.history.length, 0)]
    : [times, history];
  const series: UPlot.Series[] = [{}, { label: 'history', stroke: '#2458d6', width: 1.5 }];
  if (band.length) {
    series.push({ label: 'p10', stroke: 'rgba(168,100,0,.5)', width: 1 }, { label: 'p50', stroke: '#a86400', width: 2 }, { label: 'p90', stroke: 'rgba(168,100,0,.5)', width: 1 });
  }
  const options: UPlot.Options = {
    width,
    height: 190,
    series,
    bands: band.length ? [{ series: [4, 2], fill: 'rgba(242,184,75,.28)' }] : [],
    legend: { show: true },
    scales: { x: { time: true } },
    axes: [{}, { size: 60 }],
  };
  new uPlot(options, data, box);
  return box;
}
