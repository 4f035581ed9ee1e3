/**
 * Page data as JSON (`/<slug>.json`), saved next to each page by the static build, plus the
 * cross-reference and search indexes when serving live (`/myst.xref.json`, `/myst.search.json`).
 */
import { json, type LoaderFunction } from '@remix-run/node';
import { getConfig, getContentJson, getPage, slugFromPath } from '../content.server';

export const loader: LoaderFunction = async ({ request }) => {
  const slug = slugFromPath(new URL(request.url).pathname);
  if (slug === 'myst.xref' || slug === 'myst.search') {
    const data = await getContentJson(`${slug}.json`);
    return data ? json(data) : json({ status: 404, message: `${slug}.json not found` }, { status: 404 });
  }
  const config = await getConfig();
  const page = await getPage(request, config, slug);
  return json(page, { headers: { 'Access-Control-Allow-Origin': '*' } });
};
