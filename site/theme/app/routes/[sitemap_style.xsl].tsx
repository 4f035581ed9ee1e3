import type { LoaderFunction } from '@remix-run/node';
import { sitemapStylesheetResponse } from '@myst-theme/site';

export const loader: LoaderFunction = async () => sitemapStylesheetResponse();
