/**
 * A rule between variables. It needs no I/O, so `loadConfig` checks it with the values and
 * reports it like a bad value, naming `variable`.
 */
export interface ConfigRule<C> {
  variable: string;
  message: string;
  /**
   * The `svc` services the rule is for: checked only when the process runs one of them.
   * Absent: every service; a process that starts none (an MCP server) checks no rules.
   */
  services?: readonly string[];
  broken(config: C): boolean;
}
