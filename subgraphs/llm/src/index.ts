export { startLlm, llmSdl, type LlmOptions } from './llm-subgraph.js';
export { LOCAL_MODEL, LOCAL_EMBEDDING_MODEL } from './domain/gateway-config.js';
export { signAlert } from './service/alert-delivery.js';
export { llmConfig, EMBEDDED_MASTER_KEY, type LlmStart } from './config.js';
