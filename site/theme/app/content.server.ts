/**
 * Reading the book's content from mystmd.
 *
 * `myst build --html` / `myst start` serve the processed book as JSON on CONTENT_CDN_PORT:
 * `/config.json` (the site manifest: projects, table of contents, options) and
 * `/content/<slug>.json` (one page: frontmatter, mdast, references).  Asset links inside them
 * (figures, notebook images, downloads) are rewritten here: to `/myst_assets_folder/...` in a static
 * build (mystmd later maps that prefix to `<BASE_URL>/build/`, where it copies the assets), or to the
 * content server itself when serving live.
 */
import type { SiteManifest } from 'myst-config';
import {
  getFooterLinks,
  getProject,
  updatePageStaticLinksInplace,
  updateSiteManifestStaticLinksInplace,
  type PageLoader,
} from '@myst-theme/common';
import { getDomainFromRequest, responseNoArticle, responseNoSite } from '@myst-theme/site';

const CONTENT_CDN =
  process.env.CONTENT_CDN ?? `http://localhost:${process.env.CONTENT_CDN_PORT ?? '3100'}`;

export const STATIC_BUILD = process.env.MODE === 'static';

function rewriteLink(url: string, toAssetsFolder = STATIC_BUILD): string {
  if (!url || /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('#')) return url;
  return toAssetsFolder ? `/myst_assets_folder${url}` : `${CONTENT_CDN}${url}`;
}

async function fetchContent(path: string): Promise<Response | null> {
  const response = await fetch(`${CONTENT_CDN}${path}`).catch(() => null);
  if (!response || !response.ok) return null;
  return response;
}

/** The site manifest; `raw` keeps the links as mystmd wrote them (for server-side fetches). */
export async function getConfig(opts: { raw?: boolean } = {}): Promise<SiteManifest> {
  const response = await fetchContent('/config.json');
  if (!response) throw responseNoSite();
  const config = (await response.json()) as SiteManifest;
  if (opts.raw) return config;
  return updateSiteManifestStaticLinksInplace(config, (url: string) => rewriteLink(url));
}

/** Project (flat site: the only project, which has no URL prefix). */
export function getBookProject(config: SiteManifest) {
  const project = getProject(config);
  if (!project) throw responseNoArticle();
  return project;
}

/** Page slug from a URL path: `/a/b/` -> `a.b`; `''` for the book's landing page. */
export function slugFromPath(pathname: string): string {
  return pathname
    .replace(/\.json$/, '')
    .split('/')
    .filter(Boolean)
    .join('.');
}

export type BookPage = PageLoader & { footer: ReturnType<typeof getFooterLinks> };

/** One page of the book with its previous/next links, or a 404 response. */
export async function getPage(
  request: Request,
  config: SiteManifest,
  slug: string,
): Promise<BookPage> {
  const project = getBookProject(config);
  let pageSlug = slug || project.index;
  let response = await fetchContent(`/content/${pageSlug}.json`);
  if (!response) {
    // Folder index pages (`folder/index.md`) are stored as `folder.index`.
    pageSlug = `${pageSlug}.index`;
    response = await fetchContent(`/content/${pageSlug}.json`);
  }
  if (!response) throw responseNoArticle();
  const page = updatePageStaticLinksInplace((await response.json()) as PageLoader, (url: string) =>
    rewriteLink(url),
  );
  const footer = getFooterLinks(config, undefined, pageSlug);
  return { ...page, footer, domain: getDomainFromRequest(request), project: undefined } as BookPage;
}

/** Pass-through of a JSON file written by mystmd (cross-reference and search indexes). */
export async function getContentJson(name: string): Promise<unknown | null> {
  const response = await fetchContent(`/${name}`);
  return response ? response.json() : null;
}

/** Extra CSS named by the `style` site option, appended to myst-theme.css. */
export async function getCustomStyleSheet(config: SiteManifest): Promise<string | undefined> {
  const url = (config.options as { style?: string } | undefined)?.style;
  if (!url) return undefined;
  const response = await fetchContent(url.startsWith('/') ? url : `/${url}`);
  return response ? response.text() : undefined;
}
