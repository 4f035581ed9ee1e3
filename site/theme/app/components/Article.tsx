/**
 * One page of the book: title block, margin outline, the MyST content (prose, notebook cells and
 * outputs, exercises, figures), footnotes, bibliography and previous/next links.
 */
import { memo, useMemo } from 'react';
import type { GenericParent } from 'myst-common';
import type { SiteManifest } from 'myst-config';
import type { PageLoader } from '@myst-theme/common';
import { MyST } from 'myst-to-react';
import { FrontmatterBlock } from '@myst-theme/frontmatter';
import {
  ArticleProvider,
  useMediaQuery,
  useSiteManifest,
  useThemeTop,
} from '@myst-theme/providers';
import {
  BackmatterParts,
  Bibliography,
  DocumentOutline,
  FooterLinksBlock,
  Footnotes,
  FrontmatterParts,
  extractKnownParts,
} from '@myst-theme/site';
import {
  BusyScopeProvider,
  ConnectionStatusTray,
  ExecuteScopeProvider,
  useComputeOptions,
} from '@myst-theme/jupyter';
import { LiveNote, WIDGET_MIMETYPE, type LiveServer } from './LivePage';

export type PageOptions = {
  hide_title_block?: boolean;
  hide_outline?: boolean;
  hide_footer_links?: boolean;
  hide_authors?: boolean;
  outline_maxdepth?: number;
};

/** Site options from myst.yml, overridden by a page's `site:` frontmatter. */
export function usePageOptions(page: PageLoader): PageOptions & { hide_toc?: boolean; hide_search?: boolean } {
  const site = (useSiteManifest() as (SiteManifest & { options?: PageOptions }) | undefined)?.options;
  const pageOptions = (page.frontmatter as { site?: PageOptions } | undefined)?.site;
  return { ...site, ...pageOptions };
}

export const Article = memo(function Article({
  page,
  live,
}: {
  page: PageLoader & { footer?: any };
  live: LiveServer;
}) {
  const top = useThemeTop();
  const compute = useComputeOptions();
  const canCompute = !!compute?.enabled;
  const isNotebook = page.kind === 'Notebook';
  const hasWidgets = useMemo(
    () => isNotebook && JSON.stringify(page.mdast).includes(WIDGET_MIMETYPE),
    [isNotebook, page.mdast],
  );
  const options = usePageOptions(page);
  const outlineInMargin = useMediaQuery('(min-width: 1024px)');
  // extractKnownParts removes abstract/summary/... blocks from the tree: work on a copy.
  const tree = structuredClone(page.mdast) as GenericParent;
  const parts = extractKnownParts(tree, (page.frontmatter as any)?.parts);
  const keywords = page.frontmatter?.keywords ?? [];
  return (
    <ArticleProvider
      kind={page.kind}
      references={{ ...page.references, article: page.mdast }}
      frontmatter={page.frontmatter}
    >
      <BusyScopeProvider>
        <ExecuteScopeProvider enable={canCompute} contents={page}>
          {!options.hide_title_block && (
            <FrontmatterBlock
              kind={page.kind}
              frontmatter={page.frontmatter}
              className="mb-8 pt-9"
              location={page.location}
              hideAuthors={options.hide_authors}
            />
          )}
          {!options.hide_outline && (
            <div
              className="block my-10 lg:sticky lg:z-10 lg:h-0 lg:pt-0 lg:my-0 lg:ml-10 lg:col-margin-right"
              style={{ top }}
            >
              <DocumentOutline
                className="relative mt-9"
                maxdepth={options.outline_maxdepth}
                isMargin={outlineInMargin}
              />
            </div>
          )}
          {isNotebook && (
            <LiveNote live={canCompute ? live : { status: 'static' }} slug={page.slug} hasWidgets={hasWidgets} />
          )}
          <div id="skip-to-article" />
          <FrontmatterParts parts={parts} keywords={keywords} hideKeywords />
          <MyST ast={tree} />
          <BackmatterParts parts={parts} />
          <Footnotes />
          <Bibliography />
          {canCompute && <ConnectionStatusTray />}
          {!options.hide_footer_links && <FooterLinksBlock links={page.footer} />}
        </ExecuteScopeProvider>
      </BusyScopeProvider>
    </ArticleProvider>
  );
});
