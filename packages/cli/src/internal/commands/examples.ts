/**
 * What the examples of `--help` run.
 */

/** The server every example starts (the MCP reference server, run with npx). */
export const EVERYTHING = "npx -y @modelcontextprotocol/server-everything"
