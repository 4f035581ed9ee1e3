import type { LoaderFunction } from '@remix-run/node';
import { createRobotsTxtResponse, getDomainFromRequest } from '@myst-theme/site';

export const loader: LoaderFunction = async ({ request }) =>
  createRobotsTxtResponse(getDomainFromRequest(request));
