/**
 * Live pages: a chapter can run its code cells on a local Jupyter kernel.
 *
 * The static site ships `rebalance-live.json` = `{"live": false}` (written into public/ by
 * scripts/assets.cjs).  `make serve` (site/serve.py) answers the same URL with the address and token of
 * the Jupyter server it started for this book, on loopback only.  A page reads that file after it has
 * loaded: when a server is announced, the chapter offers "Make interactive" (thebe-core, from the
 * theme's npm install, connects to the kernel and the cells run there; the widgets' comms go through
 * thebe-core's bundled ipywidgets manager); otherwise the page keeps its stored outputs (the widgets'
 * static twins) and says how to get the live version.
 *
 * Nothing about the server is baked into the built site: the token changes at every `make serve`, and
 * site/serve.py gives it only to the browser that opened the one-time link it prints (a session cookie).
 * Nothing comes from a CDN either: require.js and MathJax, which thebe-core would fetch from one, are
 * handled in ../thebe-offline.ts.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { CoreOptions } from 'thebe-core';
import { useThebeServer } from 'thebe-react';
import { useBusyScope, useExecutionScope } from '@myst-theme/jupyter';
import { serveRequireJsLocally, THEBE_NO_MATHJAX } from '../thebe-offline';

export const LIVE_FILE = 'rebalance-live.json';
export const WIDGET_MIMETYPE = 'application/vnd.jupyter.widget-view+json';

export type LiveServer =
  | { status: 'checking' | 'static' }
  | { status: 'live'; url: string; token: string; kernelName: string };

/** What `make serve` announces; `static` when the file says so, is missing or is malformed. */
export function useLiveServer(baseurl: string | undefined): LiveServer {
  const [live, setLive] = useState<LiveServer>({ status: 'checking' });
  useEffect(() => {
    let cancelled = false;
    fetch(`${baseurl ?? ''}/${LIVE_FILE}`, { cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null)
      .then((data) => {
        if (cancelled) return;
        const ok = data && data.live === true && typeof data.url === 'string' && typeof data.token === 'string';
        if (ok) serveRequireJsLocally(baseurl);
        setLive(
          ok
            ? { status: 'live', url: data.url, token: data.token, kernelName: data.kernelName || 'python3' }
            : { status: 'static' },
        );
      });
    return () => {
      cancelled = true;
    };
  }, [baseurl]);
  return live;
}

/** thebe-core options for the announced server (undefined: compute stays off). */
export function useLiveThebeOptions(live: LiveServer) {
  return useCallback(
    (_fromFrontmatter?: CoreOptions): CoreOptions | undefined => {
      if (live.status !== 'live') return undefined;
      return {
        serverSettings: { baseUrl: live.url, token: live.token, appendToken: true },
        kernelOptions: { kernelName: live.kernelName },
        // a fresh kernel per page load: never reconnect to a session saved in localStorage
        savedSessionOptions: { enabled: false },
        // no MathJax typesetter: it would load MathJax 2 from a CDN (see ../thebe-offline.ts)
        ...THEBE_NO_MATHJAX,
      } as CoreOptions;
    },
    [live],
  );
}

const noteClass =
  'myst-live-note col-body my-4 rounded border-l-4 px-4 py-2 text-sm not-prose ' +
  'border-sky-500 bg-sky-50 text-stone-800 dark:bg-stone-800 dark:text-stone-100';
const buttonClass =
  'myst-live-button mr-3 rounded border border-sky-600 px-3 py-1 font-semibold text-sky-800 ' +
  'hover:bg-sky-600 hover:text-white disabled:cursor-wait disabled:opacity-50 dark:text-sky-300';

/** The note at the top of a chapter: how to get the live version, or the live controls. */
export function LiveNote({ live, slug, hasWidgets }: { live: LiveServer; slug: string; hasWidgets: boolean }) {
  if (live.status !== 'live') {
    return (
      <aside className={noteClass} data-live-status={live.status}>
        <strong>Static page.</strong> The outputs below were computed when the book was built
        {hasWidgets
          ? ', and each widget shows its static twin (the figure or table for its default settings). To run the code and move the widgets\u2019 sliders here'
          : '. To run its code here'}
        , clone the repository, run <code>make serve</code> and open the one-time link it prints: it serves this
        site together with a local Jupyter kernel that only your browser may use, and every chapter then offers{' '}
        <em>Make interactive</em>. (Or open the chapter in
        JupyterLab with <code>make lab</code>.)
      </aside>
    );
  }
  return <LiveControls slug={slug} />;
}

function LiveControls({ slug }: { slug: string }) {
  const { connect, connecting, ready: serverReady, error, server } = useThebeServer();
  const { ready: scopeReady, start, execute, state } = useExecutionScope();
  const busy = useBusyScope();
  // clicks on "Make interactive" (again after an error), and the last one acted on
  const [clicks, setClicks] = useState(0);
  const handled = useRef(0);
  const requested = clicks > 0;
  // "Make interactive" must wait for thebe-core, which loads after the page does.  Before it has loaded,
  // thebe-react 0.5.0's connect() does nothing (ThebeServerProvider's connectToServer returns while its
  // `server` is undefined, and nothing calls it again), and @myst-theme/jupyter 1.3.1's start() skips the
  // notebook (selectAreAllNotebookScopesBuilt counts only the page's dependencies, so the build moves on
  // before NotebookBuilder, which needs the core, has made the notebook scope; the session starter then
  // finds no scope and the build is cleared).  Either left the page at "Starting a kernel..." for good.
  // The click is remembered and both are called once the server object exists, which the provider makes
  // from the loaded core (tests/site/test_site_live.py holds thebe-core's bundle back until after the click).
  useEffect(() => {
    if (clicks === handled.current || !server) return;
    handled.current = clicks;
    connect();
    start(slug);
  }, [clicks, server, connect, start, slug]);
  const executing = busy.page(slug, 'execute');
  const building = !!state.builds?.[slug] && !scopeReady;
  // @myst-theme/jupyter 1.3.1 marks a page ready once the sessions of its *dependencies* exist, which
  // for a plain notebook (no dependencies) is before its own kernel session: wait for every session.
  const scopes = Object.values(state.pages?.[slug]?.scopes ?? {}) as { session?: unknown }[];
  const ready = !!scopeReady && scopes.length > 0 && scopes.every((scope) => !!scope.session);
  const makeInteractive = () => setClicks((n) => n + 1);
  let status = 'A local Jupyter server is running for this book (make serve).';
  if (error) status = `Could not reach the local Jupyter server: ${error}`;
  else if (ready && executing) status = 'Running the cells on the local kernel...';
  else if (ready) status = 'Connected to the local kernel: run the cells, then move the sliders.';
  else if (requested || connecting || building) status = 'Starting a kernel...';
  return (
    <aside
      className={noteClass}
      data-live-status={error ? 'error' : ready ? 'ready' : requested ? 'starting' : 'available'}
    >
      <div className="flex flex-wrap items-center gap-y-2">
        {!ready && (
          <button
            type="button"
            className={buttonClass}
            onClick={makeInteractive}
            disabled={requested && !error}
            title="Connect this page to the local Jupyter kernel"
          >
            Make interactive
          </button>
        )}
        {ready && (
          <button
            type="button"
            className={buttonClass}
            onClick={() => execute(slug)}
            disabled={executing}
            title="Run every code cell of this chapter on the local kernel"
          >
            Run all cells
          </button>
        )}
        <span className="myst-live-status">{status}</span>
      </div>
      {serverReady && ready && (
        <p className="mt-1 mb-0 text-xs opacity-80">
          Each cell also has its own run button. Widgets come alive once their cell has run.
        </p>
      )}
    </aside>
  );
}
