import { htmlRoute, packageFileRoutes, type Route } from '@svc/kit';

/** GraphiQL from its npm package: the landing page works without a CDN or internet. */
export function landingPageRoutes(graphqlPath: string): Route[] {
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
        defaultEditorToolsVisibility: true,
        defaultHeaders: JSON.stringify({ Authorization: 'Bearer <token from POST /api/v1/auth/token>' }, null, 2),
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
