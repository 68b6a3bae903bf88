// Run a command while something answers on the local model servers' default ports, the way a
// developer's machine looks with Ollama or LM Studio running:
//
//   node test/support/busy-default-ports.ts -- npx vitest run
//
// Tests must not notice: each one starts its own servers on ports of its own. On a shared
// machine, run it in a private network namespace so other processes are not disturbed:
//
//   unshare -n sh -c 'ip link set lo up && node test/support/busy-default-ports.ts -- npx vitest run'
//
// A port that is taken already (a real Ollama) stays as it is: it is busy either way.
import { spawn } from "node:child_process";
import http from "node:http";

/** Ollama, LM Studio, the llama.cpp server, vLLM. */
const PORTS = [11434, 1234, 8080, 8000];

function answer(port: number, req: http.IncomingMessage, res: http.ServerResponse): void {
  const json = (body: unknown): void => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (req.url === "/v1/models") {
    json({ object: "list", data: [{ id: "squatter-model", object: "model", owned_by: `port ${port}` }] });
  } else if (req.url === "/api/tags") {
    json({ models: [{ name: "squatter-model:latest", size: 1_000_000, details: {} }] });
  } else if (req.url === "/v1/chat/completions") {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: unknown, finish: string | null = null): string =>
        `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: "squatter-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.end(
        `${chunk({ role: "assistant", content: `the server on port ${port} answered` })}${chunk({}, "stop")}data: [DONE]\n\n`,
      );
    });
  } else {
    res.writeHead(404);
    res.end();
  }
}

const listening: number[] = [];
const servers: http.Server[] = [];
for (const port of PORTS) {
  const server = http.createServer((req, res) => answer(port, req, res));
  const ok = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (ok) {
    listening.push(port);
    servers.push(server);
  }
}
console.log(`busy-default-ports: answering on 127.0.0.1:${listening.join(", ") || "(none: all taken)"}`);

const dash = process.argv.indexOf("--");
const [command, ...args] = dash === -1 ? [] : process.argv.slice(dash + 1);
if (command === undefined) {
  console.log("busy-default-ports: no command after --; serving until interrupted.");
} else {
  const child = spawn(command, args, { stdio: "inherit" });
  child.on("close", (code, signal) => {
    for (const s of servers) s.close();
    process.exit(code ?? (signal ? 1 : 0));
  });
}
