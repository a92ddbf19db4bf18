import { htmlRoute, packageFileRoutes, type Route } from '@svc/kit';
import { DEFAULT_HEADERS, type GraphiqlTab } from './graphiql-tabs.js';

/** JSON for an inline script: `<` escaped so no text can close the script element. */
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * GraphiQL from its npm package: the landing page works without a CDN or internet. It opens on
 * `tabs` (schema/operations/graphiql.graphql: real operations of this platform, each explained)
 * with the headers pane showing where the token goes. Its fetcher corrects a stale operation
 * name GraphiQL sends right after a tab switch (see the script).
 */
export function landingPageRoutes(graphqlPath: string, tabs: GraphiqlTab[] = []): Route[] {
  const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Svc Platform GraphQL</title>
  <link rel="icon" href="data:," />
  <link rel="stylesheet" href="/assets/graphiql.min.css" />
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="/assets/react.production.min.js"></script>
  <script src="/assets/react-dom.production.min.js"></script>
  <script src="/assets/graphiql.min.js"></script>
  <script>
    const base = GraphiQL.createFetcher({ url: ${JSON.stringify(graphqlPath)} });
    // GraphiQL can send the previous tab's operation name for a moment after a tab switch or an
    // edit (its React state lags its editor's parse): a name the document does not define is
    // replaced by the document's own when it defines one operation name or none.
    const definedNames = (query) => [...query.replace(/#[^\\n]*/g, '').matchAll(/\\b(?:query|mutation|subscription)\\s+([_A-Za-z][_0-9A-Za-z]*)/g)].map((m) => m[1]);
    const fetcher = (params, options) => {
      if (params && params.operationName && typeof params.query === 'string') {
        const names = definedNames(params.query);
        if (!names.includes(params.operationName) && names.length <= 1) params = { ...params, operationName: names[0] || null };
      }
      return base(params, options);
    };
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, {
        fetcher,
        defaultEditorToolsVisibility: 'headers',
        defaultHeaders: ${inlineJson(DEFAULT_HEADERS)},
        defaultTabs: ${inlineJson(tabs)},
      }),
    );
  </script>
</body>
</html>`;
  return [
    htmlRoute('/', html),
    ...packageFileRoutes(import.meta.url, {
      '/assets/graphiql.min.css': 'graphiql/graphiql.min.css',
      '/assets/graphiql.min.js': 'graphiql/graphiql.min.js',
      '/assets/react.production.min.js': 'react/umd/react.production.min.js',
      '/assets/react-dom.production.min.js': 'react-dom/umd/react-dom.production.min.js',
    }),
  ];
}
