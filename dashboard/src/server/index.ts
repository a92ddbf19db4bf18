export { startDashboard, CONTENT_SECURITY_POLICY, type DashboardOptions } from './dashboard-server.js';
export { createDashboardSessions, type DashboardSessions } from './session-store.js';
