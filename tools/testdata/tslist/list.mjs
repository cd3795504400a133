// Times the reference TypeScript client's first and second tools/list
// against a stdio MCP server (argv: command args...).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [cmd, ...args] = process.argv.slice(2);
const client = new Client({ name: "bench", version: "1" });
await client.connect(new StdioClientTransport({ command: cmd, args, stderr: "ignore" }));
const t0 = performance.now();
const a = await client.listTools();
const t1 = performance.now();
await client.listTools();
const t2 = performance.now();
const bytes = JSON.stringify(a).length;
console.log(JSON.stringify({ tools: a.tools.length, bytes, first_ms: +(t1 - t0).toFixed(1), second_ms: +(t2 - t1).toFixed(1) }));
await client.close();
