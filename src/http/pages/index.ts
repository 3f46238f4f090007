/** The HTML pages under /sandbox: the merchant dashboard and the payer page. */
import { Hono } from 'hono';
import type { AppEnv } from '../context.js';
import { dashboardRoutes } from './dashboard-page.js';
import { payerRoutes } from './payer-routes.js';

export function pagesRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.route('/', dashboardRoutes());
  routes.route('/', payerRoutes());
  return routes;
}
