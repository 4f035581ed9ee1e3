// The landing page (`/`) is the project's index page, rendered like every other page.
export { default, loader, meta, ErrorBoundary } from './$';
