/**
 * The book's page frame: top bar (logo, search, dark mode), the primary sidebar with the table of
 * contents, and the article grid.  Parts named `footer` / `primary_sidebar_footer` / `navbar_end` in
 * myst.yml are rendered when present.
 */
import type { ReactNode } from 'react';
import type { GenericParent } from 'myst-common';
import { MyST } from 'myst-to-react';
import { PrimaryNavigation, TopNav, useSidebarHeight } from '@myst-theme/site';
import {
  BannerStateProvider,
  TabStateProvider,
  UiStateProvider,
  useSiteManifest,
  useThemeTop,
} from '@myst-theme/providers';

type Parts = Partial<Record<string, { mdast: GenericParent }>>;

function SiteParts(): Parts {
  const site = useSiteManifest() as { parts?: Parts; projects?: { parts?: Parts }[] } | undefined;
  return { ...site?.projects?.[0]?.parts, ...site?.parts };
}

function Frame({
  children,
  hideToc,
  hideSearch,
}: {
  children: ReactNode;
  hideToc?: boolean;
  hideSearch?: boolean;
}) {
  const top = useThemeTop();
  // Begin the sidebar 20px below the top bar, aligned with the article text.
  const { container, toc } = useSidebarHeight<HTMLDivElement>(top, 20);
  const parts = SiteParts();
  const sidebarFooter = parts.primary_sidebar_footer ? (
    <MyST ast={parts.primary_sidebar_footer.mdast} />
  ) : undefined;
  return (
    <>
      <TopNav hideToc={hideToc} hideSearch={hideSearch} navbarEnd={parts.navbar_end?.mdast} />
      <PrimaryNavigation
        sidebarRef={toc}
        hide_toc={hideToc}
        footer={sidebarFooter}
        navbarEnd={parts.navbar_end?.mdast}
      />
      <TabStateProvider>
        <main ref={container} className="article-grid grid-gap">
          {children}
        </main>
      </TabStateProvider>
      {parts.footer && (
        <TabStateProvider>
          <footer className="article-grid grid-gap my-10">
            <MyST ast={parts.footer.mdast} />
          </footer>
        </TabStateProvider>
      )}
    </>
  );
}

export function BookLayout(props: { children: ReactNode; hideToc?: boolean; hideSearch?: boolean }) {
  return (
    <UiStateProvider>
      <BannerStateProvider>
        <Frame {...props} />
      </BannerStateProvider>
    </UiStateProvider>
  );
}
