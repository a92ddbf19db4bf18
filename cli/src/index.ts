export * from './platform.js';
export * from './services.js';
export * from './config.js';
export * from './paths.js';
