/** The HTML pages under /sandbox: the merchant dashboard and the payer page. */
import { Hono } from 'hono';
import type { AppEnv } from '../context.js';
import { describeRegistered } from '../contract/route.js';
import { dashboardRoutes } from './dashboard-page.js';
import * as contracts from './pages.routes.js';
import { payerRoutes } from './payer-routes.js';

export function pagesRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const dashboard = dashboardRoutes();
  describeRegistered(dashboard, contracts.dashboard);
  routes.route('/', dashboard);
  routes.route('/', payerRoutes());
  return routes;
}
