import { htmlRoute, packageFileRoutes, type Route } from '@svc/kit';
import { DEFAULT_HEADERS, type GraphiqlTab } from './graphiql-tabs.js';

/** JSON for an inline script: `<` escaped so no text can close the script element. */
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * GraphiQL from its npm package: the landing page works without a CDN or internet. It opens on
 * `tabs` (schema/operations/graphiql.graphql: real operations of this platform, each explained)
 * with the headers pane showing where the token goes.
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
    const fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(graphqlPath)} });
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
