// Drives debugpy-guard serve through the reference TypeScript MCP client:
// argv is the command and its args; stdin is a JSON plan, {"env": {...},
// "calls": [{"tool", "args"}...]}. The client validates every structured
// result against its tool's output schema and throws when it does not
// match. One JSON line out per call: {tool, isError, text} or {tool, thrown}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";
const [cmd, ...args] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(0, "utf8"));
const client = new Client({ name: "session", version: "1" });
await client.connect(new StdioClientTransport({ command: cmd, args, stderr: "ignore",
  env: { ...getDefaultEnvironment(), ...plan.env } }));
const listed = await client.listTools();
console.log(JSON.stringify({ listed: listed.tools.length }));
for (const c of plan.calls) {
  try {
    const r = await client.callTool({ name: c.tool, arguments: c.args ?? {} });
    console.log(JSON.stringify({ tool: c.tool, isError: !!r.isError, text: (r.content?.[0]?.text ?? "").slice(0, 300) }));
  } catch (e) {
    console.log(JSON.stringify({ tool: c.tool, thrown: String(e?.message ?? e) }));
  }
}
await client.close();
