/**
 * Server entry: plain string rendering (an explicit entry also stops Remix from installing `isbot`
 * at start-up to create its default one).
 */
import type { EntryContext } from '@remix-run/node';
import { RemixServer } from '@remix-run/react';
import { renderToString } from 'react-dom/server';

export default function handleRequest(
  request: Request,
  status: number,
  headers: Headers,
  remixContext: EntryContext,
) {
  const markup = renderToString(<RemixServer context={remixContext} url={request.url} />);
  headers.set('Content-Type', 'text/html; charset=utf-8');
  return new Response('<!DOCTYPE html>' + markup, { status, headers });
}
