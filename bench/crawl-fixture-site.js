// Fixture site for bench/crawl-throughput.js. Runs in its own process (fork) so serving pages
// never shares an event loop with a crawler under test.
//
// node:http on 127.0.0.1 (ephemeral port), keep-alive. Serves
//   /robots.txt          allows everything
//   /list/<n>            list page n (0 <= n < pages): a news listing like
//                        subgraphs/crawl/test/fixtures/v1.html with ITEMS_PER_PAGE items (title,
//                        date, link) plus one advertisement row that has neither (extractors drop it)
//   /warm/<n>            the same kind of page, a separate set for warm-up
// Every page is rendered once at start-up from a seeded generator (so every run serves the same
// bytes) and kept in memory; answers carry Content-Type text/html; charset=utf-8 and a
// Content-Length. Anything else is 404.
//
// Message out: { type: 'ready', port, pages, warmPages, itemsPerPage, bytesPerPage,
//               expected: { list: { items, digest }, warm: { items, digest } } }
//   (expected items and digest are computed from the generator data, independently of any
//    HTML parser: the ground truth every contender's extraction is checked against)
// Message in:  { type: 'stats', id } -> { type: 'stats', id, cpu: process.cpuUsage(), requests }
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { seededRandom } from '../subgraphs/kit/dist/src/random.js';

const ITEMS_PER_PAGE = 20;
const PAGES = Number(process.env.FIXTURE_PAGES ?? 2000);
const WARM_PAGES = Number(process.env.FIXTURE_WARM_PAGES ?? 200);


const WORDS = (
  'city council approves new bike lanes harbour road storm warning issued northern coast local bakery wins national ' +
  'bread award ferry timetable changes winter season school library reopens after renovation museum extends opening ' +
  'hours weekends market square fishing fleet returns record catch lighthouse restoration begins volunteers clean ' +
  'beach festival parade tram line extension approved budget vote delayed hospital wing opens rowing club celebrates ' +
  'centenary bridge repairs traffic diverted theatre season announced police appeal witnesses harbourmaster retires'
).split(' ');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One page's items: what an extractor must find (title text, date text, absolute link). */
function pageData(kind, n, origin) {
  const rand = seededRandom((kind === 'list' ? 1_000_003 : 7_000_001) + n * 7919);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)];
  const items = [];
  for (let i = 0; i < ITEMS_PER_PAGE; i++) {
    const words = Array.from({ length: 5 + Math.floor(rand() * 6) }, pick);
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    // Some titles carry characters that must be entity-encoded in HTML (decoded by every parser).
    const title = rand() < 0.15 ? `${words.slice(0, 3).join(' ')} & ${words.slice(3).join(' ')}` : words.join(' ');
    const day = 1 + Math.floor(rand() * 28);
    const date = `${day} ${MONTHS[Math.floor(rand() * 12)]} 2026`;
    const id = `${n}-${i}`;
    // Link forms as on real listings: absolute path, relative, absolute URL, parent-relative, query.
    const form = i % 5;
    const href = [`/n/${kind}/${id}`, `story-${id}.html`, `https://news.example.com/n/${id}`, `../archive/2026/${id}`, `/n/${id}?ref=list`][form];
    const pageUrl = `${origin}/${kind}/${n}`;
    items.push({ title, date, href, link: new URL(href, pageUrl).href, teaser: `${pick()} ${pick()} ${pick()} ${pick()} ${pick()}.` });
  }
  return items;
}

function renderPage(kind, n, items) {
  const rows = items.map((item, i) => {
    // Whitespace inside the title element, as hand-written templates have; extractors collapse it.
    const row = `      <li class="news-item">
        <h3 class="title"><a href="${escapeHtml(item.href)}">
          ${escapeHtml(item.title)}
        </a></h3>
        <span class="date">${item.date}</span>
        <p class="teaser">${escapeHtml(item.teaser)}</p>
      </li>\n`;
    return i === 7 ? `      <li class="news-item news-item--ad"><span class="ad-label">Advertisement</span></li>\n${row}` : row;
  }).join('');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Latest news, page ${n + 1} – Harbour Gazette</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/assets/site.css">
  <script>window.analytics = { page: "${kind}-${n}" };</script>
</head>
<body>
  <header class="site-header">
    <a class="logo" href="/">Harbour Gazette</a>
    <nav class="main-nav">
      <ul class="nav-list">
        <li class="nav-item"><a href="/">Home</a></li>
        <li class="nav-item"><a href="/latest/">Latest</a></li>
        <li class="nav-item"><a href="/sport/">Sport</a></li>
        <li class="nav-item"><a href="/about/">About us</a></li>
      </ul>
    </nav>
  </header>
  <main id="content">
    <h1 class="page-title">Latest news</h1>
    <ul class="news-list">
${rows}    </ul>
    <nav class="pager"><a href="/${kind}/${Math.max(0, n - 1)}">Previous</a> <a href="/${kind}/${n + 1}">Next</a></nav>
  </main>
  <aside class="sidebar">
    <h2>Most read</h2>
    <ol class="most-read"><li><a href="/n/most/1">Harbour festival draws record crowds</a></li><li><a href="/n/most/2">New ferry enters service</a></li><li><a href="/n/most/3">Council publishes budget</a></li></ol>
  </aside>
  <footer class="site-footer"><p>&copy; 2026 Harbour Gazette. <a href="/contact">Contact</a> · <a href="/privacy">Privacy</a></p></footer>
</body>
</html>
`;
}

/** Order-independent digest of extracted items: sha256 over the sorted `title\tdate\tlink` lines (same as in crawl-contender.js). */
function itemsDigest(lines) {
  return createHash('sha256').update([...lines].sort().join('\n')).digest('hex').slice(0, 16);
}

const server = createServer({ keepAliveTimeout: 60_000 });
let requests = 0;
const pages = new Map();

server.on('request', (req, res) => {
  requests++;
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/robots.txt') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 25 });
    res.end('User-agent: *\nAllow: /\n\n\n');
    return;
  }
  const body = pages.get(path);
  if (!body) {
    res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 9 });
    res.end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
  res.end(body);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;
  const expected = {};
  let bytes = 0;
  for (const [kind, count] of [['list', PAGES], ['warm', WARM_PAGES]]) {
    const lines = [];
    for (let n = 0; n < count; n++) {
      const items = pageData(kind, n, origin);
      const body = Buffer.from(renderPage(kind, n, items), 'utf8');
      pages.set(`/${kind}/${n}`, body);
      if (kind === 'list') bytes += body.length;
      for (const item of items) lines.push(`${item.title}\t${item.date}\t${item.link}`);
    }
    expected[kind] = { items: lines.length, digest: itemsDigest(lines) };
  }
  process.send?.({ type: 'ready', port, pages: PAGES, warmPages: WARM_PAGES, itemsPerPage: ITEMS_PER_PAGE, bytesPerPage: Math.round(bytes / PAGES), expected });
});

process.on('message', (message) => {
  if (message?.type === 'stats') process.send({ type: 'stats', id: message.id, cpu: process.cpuUsage(), requests });
});
process.on('disconnect', () => process.exit(0));
