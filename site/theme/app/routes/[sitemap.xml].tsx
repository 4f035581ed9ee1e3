import type { LoaderFunction } from '@remix-run/node';
import { createSitemapResponse, getDomainFromRequest, getSiteSlugs } from '@myst-theme/site';
import { getConfig } from '../content.server';

export const loader: LoaderFunction = async ({ request }) =>
  createSitemapResponse(getDomainFromRequest(request), getSiteSlugs(await getConfig()));
