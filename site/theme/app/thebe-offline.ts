/**
 * thebe-core without a CDN.  thebe-core 0.5.0 (the bundle the theme serves from public/) has two
 * addresses on the internet built in; this module keeps the site from asking either:
 *
 * - MathJax 2 (`https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.5/MathJax.js`): every rendermime
 *   registry made without MathJax options (`makeMathjaxOptions()` and `new Config()` default to that URL)
 *   gets a MathJax typesetter, which adds a <script> for that URL as soon as it renders an HTML output
 *   (each pandas table).  An empty `mathjaxUrl` turns the typesetter off (`getRenderers` in thebe-core's
 *   rendermime.ts: `e.mathjaxUrl && e.mathjaxConfig && new MathJaxTypesetter(...)`).  Live pages pass
 *   `THEBE_NO_MATHJAX` in their thebe options (components/LivePage.tsx); static pages draw outputs with
 *   `core.makeRenderMimeRegistry()` without options (@myst-theme/jupyter 1.3.1, passive.js), so
 *   `keepThebeOffline` gives the loaded module a `makeRenderMimeRegistry` whose default is the same.
 *   The book's outputs hold no LaTeX (HTML tables, images, text): nothing is lost.
 * - require.js (`https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js`), which the
 *   widget manager fetches before it hands out any widget class (ThebeManager.loadClass) on a live page:
 *   `serveRequireJsLocally` answers that one address with the copy of npm's `requirejs` 2.3.6 that
 *   scripts/assets.cjs puts in public/requirejs/.
 *
 * The browser test (tests/site) records every request of every page, static and live, and fails on
 * the first one outside 127.0.0.1.
 */
import type { CoreOptions } from 'thebe-core';

/** thebe options that turn MathJax off (no typesetter, so no <script> to a CDN). */
export const THEBE_NO_MATHJAX: Pick<CoreOptions, 'mathjaxUrl' | 'mathjaxConfig'> = {
  mathjaxUrl: '',
  mathjaxConfig: '',
};

type ThebeModule = { makeRenderMimeRegistry?: (mathjax?: CoreOptions) => unknown };
type ThebeGlobal = { module?: ThebeModule; api?: ThebeModule; [key: string]: unknown };

function withoutMathJax<T extends ThebeModule | undefined>(module: T): T {
  if (!module || typeof module.makeRenderMimeRegistry !== 'function') return module;
  const make = module.makeRenderMimeRegistry;
  const registry = (mathjax?: CoreOptions) => make(mathjax ?? THEBE_NO_MATHJAX);
  // A proxy, not a copy: every other export stays the module's own (live) binding.
  return new Proxy(module, {
    get: (target, key, receiver) => (key === 'makeRenderMimeRegistry' ? registry : Reflect.get(target, key, receiver)),
  }) as T;
}

/**
 * Call once in the browser before thebe-core's bundle loads (entry.client.tsx).  The bundle announces
 * itself with `window.thebeCore = Object.assign(window.thebeCore ?? {}, {module, api, version})` and
 * thebe-react's loader then reads `window.thebeCore.module`; a setter on `window.thebeCore` hands the
 * loader the module with the MathJax-less default.  `window.thebeCore` stays undefined until the bundle
 * has run, so the loader still adds the bundle's <script> as before.
 */
export function keepThebeOffline(): void {
  if (typeof window === 'undefined' || Object.getOwnPropertyDescriptor(window, 'thebeCore')) return;
  let current: ThebeGlobal | undefined;
  Object.defineProperty(window, 'thebeCore', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (value: ThebeGlobal | undefined) => {
      current = value && { ...value, module: withoutMathJax(value.module), api: withoutMathJax(value.api) };
    },
  });
}

// thebe-core 0.5.0's widget manager (ThebeManager.loadClass) fetches require.js from this CDN address
// before it hands out any widget class, even ipywidgets' own, which its bundle contains.
const REQUIREJS_CDN = 'https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js';
let requireJsIsLocal = false;

/** Answers thebe-core's request for require.js with the site's own copy (public/requirejs/). */
export function serveRequireJsLocally(baseurl: string | undefined): void {
  if (requireJsIsLocal || typeof window === 'undefined') return;
  requireJsIsLocal = true;
  const original = window.fetch.bind(window);
  const local = `${baseurl ?? ''}/requirejs/require.js`;
  window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return original(url === REQUIREJS_CDN ? local : input, init);
  };
}
