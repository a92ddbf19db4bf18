import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PrometheusRequest {
  path: string;
  params: URLSearchParams;
}

/**
 * A Prometheus HTTP API stand-in (the outside world): `/api/v1/label/__name__/values` lists
 * `series`' names, `/api/v1/query_range` answers a matrix of each series whose labels match the
 * selector's, one value per step. Records every request.
 */
export async function startFakePrometheus(series: { name: string; labels: Record<string, string>; value: (t: number) => number }[]) {
  const requests: PrometheusRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ path: url.pathname, params: url.searchParams });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/api/v1/label/__name__/values') return send(200, { status: 'success', data: [...new Set(series.map((s) => s.name))] });
    if (url.pathname === '/api/v1/query_range') {
      const query = url.searchParams.get('query') ?? '';
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?$/.exec(query);
      if (!match) return send(400, { status: 'error', errorType: 'bad_data', error: `parse error in ${query}` });
      const wanted = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]!.replace(/\\(.)/g, '$1')]));
      const start = Number(url.searchParams.get('start'));
      const end = Number(url.searchParams.get('end'));
      const step = Number(url.searchParams.get('step'));
      const result = series
        .filter((s) => s.name === match[1] && Object.entries(wanted).every(([k, v]) => s.labels[k] === v))
        .map((s) => {
          const values: [number, string][] = [];
          for (let t = start; t <= end; t += step) values.push([t, String(s.value(t))]);
          return { metric: { __name__: s.name, ...s.labels }, values };
        });
      return send(200, { status: 'success', data: { resultType: 'matrix', result } });
    }
    return send(404, { status: 'error', error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
