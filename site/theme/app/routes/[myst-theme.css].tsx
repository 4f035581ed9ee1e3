// Site-wide CSS generated from the site options (plus the optional `style` file).
import type { LoaderFunction } from '@remix-run/node';
import { cssResponse, themeCSS, type ThemeCssOptions } from '@myst-theme/site';
import { getConfig, getCustomStyleSheet } from '../content.server';

export const loader: LoaderFunction = async () => {
  const config = await getConfig({ raw: true });
  return cssResponse(themeCSS(config.options as ThemeCssOptions, await getCustomStyleSheet(config)));
};
