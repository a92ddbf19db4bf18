export * from './router.js';
export * from './client-ip.js';
