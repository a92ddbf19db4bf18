import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface McpStdioClient {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Transport and protocol errors the client saw (a non-JSON line on stdout shows up here). */
  errors: Error[];
  close(): Promise<void>;
}

/**
 * The MCP SDK's own client over stdio, as an agent host would run a server: `command args`
 * spawned with exactly `env` (nothing inherited), stderr captured.
 */
export async function startMcpStdioClient(command: string, args: string[], env: Record<string, string>): Promise<McpStdioClient> {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const errors: Error[] = [];
  const client = new Client({ name: 'svc-e2e', version: '1.0.0' });
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    errors,
    close: () => client.close(),
  };
}
