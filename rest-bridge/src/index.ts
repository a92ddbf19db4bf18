export * from './bridge.js';
export * from './route-spec.js';
export * from './openapi.js';
export * from './server.js';
export * from './routes/index.js';
