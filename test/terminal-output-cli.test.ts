import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliWorld } from "./support/cli-world.ts";
import { envelopeOf, PACKAGE_ROOT } from "./support/lathe-cli.ts";

// What a terminal program prints is not only text: colours, titles, clipboard writes, `\r`
// progress redraws. Through the real CLI: the model reads bash's output as the screen would show
// it, the sidecar keeps it as printed, and `lathe run` prints nothing that acts on the terminal.

const world = useCliWorld("lathe-ansi-");

const call = (args: object) =>
  world.lathe(["call", "bash", JSON.stringify(args), "--session", "s1", "--mode", "yolo"]);

// eslint-disable-next-line no-control-regex -- control characters other than newline and tab
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe.skipIf(process.platform === "win32")("terminal output through the lathe CLI", () => {
  it("lathe call bash: the model reads colours, titles, clipboard writes and progress as the screen shows them", async () => {
    const command = String.raw`printf '\033]0;owned\007\033]52;c;cm0gLXJmIH4=\007'; printf '\033[1;31merror:\033[0m failed\n'; for p in 10 50 100; do printf '\rdownloading %s%%' $p; done; printf '\n'; printf 'a\bb\n'`;
    const envelope = envelopeOf(await call({ command }));
    expect(envelope.type).toBe("output");
    const output = (envelope.data as { output: string }).output;
    expect(output).toBe("error: failed\ndownloading 100%\nb\n");
    expect(output).not.toMatch(CONTROLS);
  });

  it("lathe call bash: a progress bar of 1 MB that shows as one line is not cut, and leaves no sidecar", async () => {
    // 20,000 redraws of a 50-column bar: far past the 200 KB the model reads, one line on screen.
    const command = String.raw`for i in $(seq 1 20000); do printf '\r\033[K[%-40s] %5d' "########################################" $i; done; printf '\ndone\n'`;
    const envelope = envelopeOf(await call({ command, timeout_ms: 120_000 }));
    expect(envelope.type).toBe("output");
    expect(envelope.metadata.truncated).toBeUndefined();
    expect((envelope.data as { output: string }).output).toBe(`[${"#".repeat(40)}] 20000\ndone\n`);
    const sidecars = await readdir(path.join(world.home, "sessions", "s1", "sidecars")).catch(() => []);
    expect(sidecars).toEqual([]);
  });

  it("lathe call bash: past the cap, the model reads a clean head and tail, and the sidecar keeps every byte as printed", async () => {
    const command = String.raw`for i in $(seq 1 30000); do printf '\033[32mok\033[0m line %d\n' $i; done`;
    const envelope = envelopeOf(await call({ command, timeout_ms: 120_000 }));
    expect(envelope.metadata.truncated).toBe(true);
    const output = (envelope.data as { output: string }).output;
    expect(output).toMatch(/^ok line 1\nok line 2\n/);
    expect(output).toMatch(/ok line 30000\n$/);
    expect(output).not.toMatch(CONTROLS);
    const sidecar = await readFile(envelope.metadata.output_path as string, "utf8");
    expect(sidecar.startsWith("\x1b[32mok\x1b[0m line 1\n")).toBe(true);
    expect(sidecar.endsWith("\x1b[32mok\x1b[0m line 30000\n")).toBe(true);
  });

  it("lathe run: the model's hostile text and a tool's hostile error reach the terminal escaped", async () => {
    const hostile = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J";
    // Positive control: this text holds controls a terminal acts on.
    expect(hostile).toMatch(CONTROLS);
    await world.serve({
      models: ["m"],
      replies: [
        { text: `Looking ${hostile}\n`, toolCalls: [{ name: "read", arguments: { path: `x${hostile}` } }] },
        { text: `Done ${hostile}\n` },
      ],
    });
    const run = await world.lathe(["run", "go", "--model", "openai-compatible:m"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      String.raw`Looking \u001b]52;c;cm0gLXJmIH4=\u0007\u001b]0;owned\u0007\u001b[2J`,
    );
    expect(run.stdout).toContain("Done ");
    expect(run.stderr).toContain("✗ read:");
    expect(run.stdout + run.stderr).not.toMatch(CONTROLS);
  });

  it("lathe tools and lathe call: what an MCP server wrote (its last output, a tool's description) reaches the terminal escaped", async () => {
    const hostile = "\u001b]0;owned\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\u001b[31m";
    // One server dies at start after writing escape sequences to stderr (quoted in why it failed),
    // the other lists a tool whose description holds them.
    const dying = path.join(world.home, "dying-server.mjs");
    await writeFile(
      dying,
      `process.stderr.write(${JSON.stringify(`${hostile}cannot start\n`)}); process.exit(1);\n`,
    );
    const script = path.join(world.home, "script.json");
    await writeFile(
      script,
      JSON.stringify({
        tools: [
          { name: "lookup", description: `${hostile}Looks things up.`, inputSchema: { type: "object" } },
          { name: `${hostile}named`, description: "Its name holds them.", inputSchema: { type: "object" } },
        ],
      }),
    );
    await writeFile(
      path.join(world.home, "settings.json"),
      JSON.stringify({
        mcpServers: {
          dying: { command: process.execPath, args: [dying] },
          listing: {
            command: process.execPath,
            args: [path.join(PACKAGE_ROOT, "test/fixtures/scripted-mcp-server.ts"), script],
          },
        },
      }),
    );
    const tools = await world.lathe(["tools"]);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toMatch(/^lookup .*\\u001b\]0;owned\\u0007.*Looks things up\.$/m);
    expect(tools.stdout).toMatch(/why: .*its last output: \\u001b\]0;owned.*cannot start/);
    expect(tools.stdout + tools.stderr).not.toMatch(CONTROLS);
    const call = await world.lathe(["call", "lookup", "{}", "--mode", "yolo"]);
    expect(call.stderr).toMatch(/lathe: dying \(global mcp "dying"\) is disabled: .*cannot start/);
    expect(call.stderr).not.toMatch(CONTROLS);
    for (const server of ["dying", "listing"]) {
      const trust = await world.lathe(["trust", "--mcp-server", server]);
      expect(trust.stdout).toContain(`Approved MCP server ${server}`);
      expect(trust.stdout + trust.stderr).not.toMatch(CONTROLS);
    }
  }, 60_000);

  it("lathe tools and lathe call: a skill folder whose name holds escape sequences is named escaped in the notice that skips it", async () => {
    const hostile = "\u001b]0;owned\u0007\u001b[2J\u001b[31m";
    const folder = path.join(world.home, "skills", `evil${hostile}`);
    // Positive control: the folder is there under that name, and the name acts on a terminal.
    await mkdir(folder, { recursive: true });
    expect(await readdir(path.join(world.home, "skills"))).toEqual([`evil${hostile}`]);
    expect(hostile).toMatch(CONTROLS);
    for (const args of [["tools"], ["call", "read", JSON.stringify({ path: "missing.txt" })]]) {
      const run = await world.lathe(args);
      expect(run.stderr).toMatch(
        /lathe: A skill was skipped: .*evil\\u001b\]0;owned\\u0007.* has no SKILL\.md/,
      );
      expect(run.stdout + run.stderr).not.toMatch(CONTROLS);
    }
  });
});
