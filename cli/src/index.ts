export * from './platform.js';
export * from './paths.js';
