/**
 * Client entry.  Pages of the static site are pre-rendered by mystmd at `/<slug>`, but a static file
 * server serves them as `/<slug>/` (or `/<slug>/index.html`, or under a BASE_URL).  Remix 1.19 reloads
 * the page whenever the path it rendered differs from the path in the address bar, forever; so when the
 * two name the same page we record the served path as the rendered one before hydrating.
 * Before anything loads thebe-core, `keepThebeOffline` makes sure it will not ask a CDN for MathJax.
 */
import { RemixBrowser } from '@remix-run/react';
import { startTransition, StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { keepThebeOffline } from './thebe-offline';

declare global {
  interface Window {
    __remixContext?: { url: string; state?: { loaderData?: Record<string, any> } };
  }
}

/** Does the served path name the page that was rendered at `rendered`? */
function samePage(rendered: string, served: string, isIndex: boolean): boolean {
  const norm = (p: string) => p.replace(/\/index\.html$/, '/').replace(/\/+$/, '') || '/';
  const a = norm(rendered);
  const b = norm(served);
  if (a === b || (a !== '/' && b.endsWith(a))) return true;
  // The landing page is served at the site root: `/` or `/<BASE_URL>/`.
  return isIndex && b.split('/').length <= 2;
}

keepThebeOffline();

const context = window.__remixContext;
if (context && context.url !== window.location.pathname) {
  const data = context.state?.loaderData ?? {};
  const isIndex = Object.values(data).some((d) => d && d.isIndex === true);
  if (samePage(context.url, window.location.pathname, isIndex)) context.url = window.location.pathname;
}

function hydrate() {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <RemixBrowser />
      </StrictMode>,
    );
  });
}

if (window.requestIdleCallback) window.requestIdleCallback(hydrate);
else window.setTimeout(hydrate, 1);
