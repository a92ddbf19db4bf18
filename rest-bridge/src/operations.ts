// The loader lives in kit (every caller of the graph reads the same files); re-exported here
// for the bridge's existing importers.
export { loadOperations } from '@svc/kit';
