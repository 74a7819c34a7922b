// progress-client calls exec_command on `quiver serve` over stdio with the
// TypeScript SDK the MCP Inspector's CLI runs on, as the Inspector's web UI
// calls tools: with a progress handler and resetTimeoutOnProgress, keeping
// the SDK's default 60-second request timeout. (The Inspector's CLI 0.15.0
// passes neither, so it gives up on any call after 60 seconds.)
//
// Usage: node progress-client.mjs SDK_DIR QUIVER MODE COMMAND
//   MODE "finish": wait for the call's result;
//   MODE "cancel": cancel the call at its first progress report.
// It prints one JSON line: the reports received, the last report's
// message, and the result or the error.
import { pathToFileURL } from "node:url";

const [sdkDir, quiver, mode, command] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(`${sdkDir}/dist/esm/${p}`).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const client = new Client({ name: "progress-e2e", version: "1" });
await client.connect(new StdioClientTransport({ command: quiver, args: ["serve"], env: process.env, stderr: "inherit" }));
const abort = new AbortController();
const out = { reports: 0, message: "", progress: [] };
try {
	out.result = await client.callTool({ name: "exec_command", arguments: { command } }, undefined, {
		resetTimeoutOnProgress: true,
		signal: abort.signal,
		onprogress: (p) => {
			out.reports++;
			out.message = p.message ?? "";
			out.progress.push(p.progress);
			if (mode === "cancel") abort.abort("cancelled by the test");
		},
	});
} catch (e) {
	out.error = String(e);
}
console.log(JSON.stringify(out));
await client.close();
