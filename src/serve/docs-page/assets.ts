/**
 * The reference page at /docs and its script: plain text served as is. The script lives in its own
 * file (not inline), so the page's Content-Security-Policy can allow scripts from this server only.
 */
export const DOCS_PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Public Data API reference</title>
    <link rel="icon" href="data:," />
    <style>
      body { margin: 0; font-family: system-ui, sans-serif; }
      header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 1.5rem; padding: 0.75rem 1.25rem; border-bottom: 1px solid #ddd; }
      header h1 { font-size: 1.1rem; margin: 0; }
      nav a { margin-right: 1rem; color: #224; text-decoration: none; padding-bottom: 0.2rem; }
      nav a[aria-current='page'] { font-weight: 600; border-bottom: 2px solid #32329f; }
    </style>
  </head>
  <body>
    <header>
      <h1>Public Data API reference</h1>
      <nav aria-label="API profiles">
        <a id="profile-a" href="?profile=a" data-spec="/v1/openapi.json">Profile A (/v1): articles, calendar, Smart Money; cursor paging</a>
        <a id="profile-b" href="?profile=b" data-spec="/api/v1/openapi.json">Profile B (/api/v1): articles and calendar by region; offset paging</a>
      </nav>
    </header>
    <main id="reference" data-state="loading"></main>
    <script src="/docs/redoc.standalone.js"></script>
    <script src="/docs/docs.js"></script>
  </body>
</html>
`;

export const DOCS_PAGE_SCRIPT = `// Renders the profile named by ?profile= (a by default) with Redoc, from the server's own description.
(function () {
  const tabs = Array.from(document.querySelectorAll('nav a[data-spec]'));
  const wanted = new URLSearchParams(window.location.search).get('profile') === 'b' ? 'profile-b' : 'profile-a';
  const tab = tabs.find((t) => t.id === wanted) || tabs[0];
  for (const t of tabs) {
    if (t === tab) t.setAttribute('aria-current', 'page');
    else t.removeAttribute('aria-current');
  }
  const main = document.getElementById('reference');
  // Redoc.init(spec URL, options, element, callback): the callback gets an error when loading failed.
  window.Redoc.init(tab.dataset.spec, { expandResponses: '200', hideHostname: false, sortTagsAlphabetically: false }, main, (error) => {
    main.dataset.state = error ? 'failed' : 'ready';
    main.dataset.profile = tab.id;
  });
})();
`;
