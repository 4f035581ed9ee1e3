/**
 * Every page of the book, including the landing page (`/`): the splat route matches the page however a
 * static server spells its path (`/slug`, `/slug/`, under a BASE_URL), so the client always finds the
 * data it was rendered with.
 */
import { json, type LoaderFunction, type V2_MetaFunction } from '@remix-run/node';
import { isRouteErrorResponse, useLoaderData, useRouteError } from '@remix-run/react';
import type { SiteManifest } from 'myst-config';
import {
  ErrorDocumentNotFound,
  ErrorUnhandled,
  getMetaTagsForArticle,
  useOutlineHeight,
} from '@myst-theme/site';
import { ProjectProvider, useBaseurl } from '@myst-theme/providers';
import { ComputeOptionsProvider, ThebeLoaderAndServer } from '@myst-theme/jupyter';
import { getBookProject, getConfig, getPage, slugFromPath, type BookPage } from '../content.server';
import { BookLayout } from '../components/BookLayout';
import { Article, usePageOptions } from '../components/Article';
import { useLiveServer, useLiveThebeOptions } from '../components/LivePage';

type Data = { config: SiteManifest; page: BookPage; isIndex: boolean };

export const loader: LoaderFunction = async ({ params, request }) => {
  const config = await getConfig();
  const project = getBookProject(config);
  const slug = slugFromPath(params['*'] ?? '');
  const page = await getPage(request, config, slug);
  // With a BASE_URL, mystmd renders the landing page at `/<index slug>` rather than `/`.
  return json({ config, page, isIndex: slug === '' || slug === project.index });
};

export const meta: V2_MetaFunction<typeof loader> = ({ data, location }) => {
  if (!data) return [{ title: 'Page not found' }];
  const { config, page, isIndex } = data as Data;
  const project = config.projects?.[0];
  const bookTitle = config.title ?? project?.title ?? '';
  const pageTitle = page.frontmatter?.title;
  return getMetaTagsForArticle({
    origin: '',
    url: location.pathname,
    title: !isIndex && pageTitle ? `${pageTitle}${bookTitle ? ` - ${bookTitle}` : ''}` : pageTitle || bookTitle,
    description: page.frontmatter?.description ?? project?.description ?? config.description ?? undefined,
    keywords: page.frontmatter?.keywords ?? project?.keywords ?? [],
  });
};

export default function Page() {
  const { page } = useLoaderData() as Data;
  const { container } = useOutlineHeight();
  const baseurl = useBaseurl();
  const { hide_toc, hide_search } = usePageOptions(page);
  // Live pages (see components/LivePage.tsx): compute is on only when `make serve` announces a local
  // Jupyter server; otherwise notebook outputs are drawn by thebe-core's renderers and no kernel starts.
  const live = useLiveServer(baseurl);
  const liveOptions = useLiveThebeOptions(live);
  const isLive = live.status === 'live';
  return (
    <BookLayout hideToc={hide_toc} hideSearch={hide_search}>
      <ProjectProvider>
        <ComputeOptionsProvider
          features={{ notebookCompute: isLive, figureCompute: false, launchBinder: false }}
          optionOverrideFn={liveOptions}
        >
          <ThebeLoaderAndServer baseurl={baseurl}>
            <article ref={container} className="article-grid subgrid-gap col-screen article content">
              <Article page={page} live={live} />
            </article>
          </ThebeLoaderAndServer>
        </ComputeOptionsProvider>
      </ProjectProvider>
    </BookLayout>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  return (
    <BookLayout>
      <article className="article">
        {isRouteErrorResponse(error) ? <ErrorDocumentNotFound /> : <ErrorUnhandled error={error as any} />}
      </article>
    </BookLayout>
  );
}
