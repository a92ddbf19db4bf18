export { startDashboard, CONTENT_SECURITY_POLICY, type DashboardOptions } from './dashboard-server.js';
