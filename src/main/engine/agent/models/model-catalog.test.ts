import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import {
  copyFile,
  mkdir,
  mkdtemp,
  open,
  readlink,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort } from "../../../../../test/support/closed-port.ts";
import {
  startFakeModelServer,
  type FakeModelServer,
} from "../../../../../test/fixtures/local-model-servers.ts";
import { addGgufFile, listGgufFiles } from "./gguf-folder.ts";
import { detectModels } from "./model-catalog.ts";

const TINY_GGUF = path.resolve(
  import.meta.dirname,
  "../../../../../../shared/models/llama-2-tiny-random.gguf",
);

let home: string;
const fakes: FakeModelServer[] = [];
let silent: net.Server;
let silentPort: number;
const silentSockets = new Set<net.Socket>();

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "lathe-models-"));
  fakes.push(
    await startFakeModelServer("ollama", [
      { name: "qwen2.5-coder:7b", context: 32_768 },
      { name: "llama3.2:latest", context: 131_072 },
      // Loaded with less than its Modelfile says (OLLAMA_CONTEXT_LENGTH, memory): what it runs with counts.
      { name: "phi4:latest", context: 16_384, loaded: 4_096 },
      // Neither loaded nor set: Ollama's default applies, which no answer names.
      { name: "mistral:latest" },
    ]),
    await startFakeModelServer("lmstudio", [{ name: "mistral-small", context: 16_384 }]),
    await startFakeModelServer("llamacpp", [{ name: "model.gguf", context: 8_192 }]),
    await startFakeModelServer("vllm", [{ name: "Qwen/Qwen3-8B", context: 40_960 }]),
  );
  // A server that takes the connection and never answers.
  silent = net.createServer((socket) => silentSockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentPort = (silent.address() as net.AddressInfo).port;
});

afterAll(async () => {
  for (const fake of fakes) await fake.close();
  for (const socket of silentSockets) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await rm(home, { recursive: true, force: true });
});

const at = (kind: string) => ({ baseURL: fakes.find((f) => f.kind === kind)?.baseURL as string });

describe("detecting local model servers", () => {
  it("lists each running server's models with the context it runs them with, at the address settings give", async () => {
    const catalog = await detectModels({
      providers: {
        ollama: at("ollama"),
        lmstudio: at("lmstudio"),
        llamacpp: at("llamacpp"),
        vllm: at("vllm"),
      },
      latheHome: home,
      env: {},
    });
    const byProvider = Object.fromEntries(catalog.local.map((s) => [s.provider, s]));
    expect(byProvider["ollama"]).toMatchObject({
      state: "running",
      configured: true,
      label: "Ollama",
      models: [
        { id: "ollama:qwen2.5-coder:7b", name: "qwen2.5-coder:7b", contextTokens: 32_768 },
        { id: "ollama:llama3.2:latest", name: "llama3.2:latest", contextTokens: 131_072 },
        { id: "ollama:phi4:latest", name: "phi4:latest", contextTokens: 4_096 },
        // Not the context it was trained for (the fake says 1M): Ollama does not run it with that.
        { id: "ollama:mistral:latest", name: "mistral:latest" },
      ],
    });
    expect(byProvider["ollama"]?.models[3]).not.toHaveProperty("contextTokens");
    expect(byProvider["lmstudio"]?.models).toEqual([
      { id: "lmstudio:mistral-small", name: "mistral-small", contextTokens: 16_384 },
    ]);
    expect(byProvider["llamacpp"]?.models).toEqual([
      { id: "llamacpp:model.gguf", name: "model.gguf", contextTokens: 8_192 },
    ]);
    expect(byProvider["vllm"]?.models).toEqual([
      { id: "vllm:Qwen/Qwen3-8B", name: "Qwen/Qwen3-8B", contextTokens: 40_960 },
    ]);
    // The generic provider has no usual port: it is looked for only where settings say.
    expect(byProvider["openai-compatible"]).toBeUndefined();
  });

  it("says a server is not running and how to start it: nothing listening, or no answer in time", async () => {
    const closed = await closedPort();
    const started = Date.now();
    const catalog = await detectModels({
      providers: {
        ollama: { baseURL: `http://127.0.0.1:${closed}/v1` },
        lmstudio: { baseURL: `http://127.0.0.1:${silentPort}/v1` },
        llamacpp: { baseURL: `http://127.0.0.1:${closed}/v1` },
        vllm: { baseURL: `http://127.0.0.1:${closed}/v1` },
        "openai-compatible": { baseURL: `http://127.0.0.1:${closed}/v1` },
      },
      latheHome: home,
      env: {},
      timeoutMs: 300,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    const byProvider = Object.fromEntries(catalog.local.map((s) => [s.provider, s]));
    expect(byProvider["ollama"]).toMatchObject({
      state: "stopped",
      models: [],
      message: `Ollama is not running on http://127.0.0.1:${closed} (ECONNREFUSED): start it with \`ollama serve\`.`,
    });
    expect(byProvider["lmstudio"]?.message).toBe(
      `LM Studio is not running on http://127.0.0.1:${silentPort} (no answer within 300 ms): start its server with \`lms server start\` (or from LM Studio's Developer tab).`,
    );
    expect(byProvider["openai-compatible"]).toMatchObject({ state: "stopped", configured: true });
  });

  it("says another program that does not speak HTTP holds a server's port, not 'fetch failed'", async () => {
    const sockets = new Set<net.Socket>();
    const other = net.createServer((socket) => {
      sockets.add(socket);
      socket.end("SSH-2.0-OpenSSH_9.6\r\n");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const { port } = other.address() as net.AddressInfo;
    try {
      const catalog = await detectModels({
        providers: { ollama: { baseURL: `http://127.0.0.1:${port}/v1` } },
        latheHome: home,
        env: {},
        timeoutMs: 2_000,
      });
      expect(catalog.local.find((s) => s.provider === "ollama")).toMatchObject({
        state: "error",
        message: `What answers at http://127.0.0.1:${port} is not Ollama: it does not speak HTTP (Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)). Another program may hold the port: correct providers["ollama"].baseURL in settings, or start Ollama on its own port.`,
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("offers a cloud provider's models only when its key is set (the settings' variable first)", async () => {
    const catalog = await detectModels({
      providers: {
        ...Object.fromEntries(["ollama", "lmstudio", "llamacpp", "vllm"].map((k) => [k, at(k)])),
        openai: { apiKeyEnv: "MY_OPENAI" },
      },
      latheHome: home,
      env: { ANTHROPIC_API_KEY: "sk-test", OPENAI_API_KEY: "sk-ignored" },
    });
    const cloud = Object.fromEntries(catalog.cloud.map((c) => [c.provider, c]));
    expect(cloud["anthropic"]).toMatchObject({ keySet: true, keyVariable: "ANTHROPIC_API_KEY" });
    expect(cloud["anthropic"]?.models.map((m) => m.id)).toContain("anthropic:claude-sonnet-4-5");
    expect(cloud["openai"]).toMatchObject({ keySet: false, keyVariable: "MY_OPENAI", models: [] });
    expect(JSON.stringify(catalog)).not.toContain("sk-test");
  });
});

describe("GGUF files in $LATHE_HOME/models", () => {
  it("adds a file as a link and lists it with its context length from the header", async () => {
    const added = await addGgufFile(home, TINY_GGUF);
    expect(added).toBe(path.join(home, "models", "llama-2-tiny-random.gguf"));
    // The link names the file itself, wherever a link on the way to it pointed.
    expect(await readlink(added)).toBe(await realpath(TINY_GGUF));
    // Adding the same file again changes nothing.
    expect(await addGgufFile(home, TINY_GGUF)).toBe(added);
    const catalog = await detectModels({
      providers: {},
      latheHome: home,
      env: {},
      timeoutMs: 200,
      fetch: () => Promise.reject(Object.assign(new Error("offline"), { code: "ECONNREFUSED" })),
    });
    expect(catalog.gguf.files).toEqual([
      expect.objectContaining({
        id: `gguf:${added}`,
        name: "llama-2-tiny-random.gguf",
        contextTokens: 4096,
        title: "LLaMA v2",
      }),
    ]);
  });

  it("adds a model from the Hugging Face cache by the name of its link (the file itself is a blob named by its hash)", async () => {
    const own = await mkdtemp(path.join(os.tmpdir(), "lathe-models-hf-"));
    try {
      const cache = path.join(own, "hub", "models--org--tiny");
      const blob = path.join(cache, "blobs", "5f1c0d3e9a");
      await mkdir(path.dirname(blob), { recursive: true });
      await copyFile(TINY_GGUF, blob);
      const snapshot = path.join(cache, "snapshots", "abc123");
      await mkdir(snapshot, { recursive: true });
      await symlink("../../blobs/5f1c0d3e9a", path.join(snapshot, "tiny-q4.gguf"));
      const added = await addGgufFile(path.join(own, "home"), path.join(snapshot, "tiny-q4.gguf"));
      expect(added).toBe(path.join(own, "home", "models", "tiny-q4.gguf"));
      expect(await readlink(added)).toBe(await realpath(blob));
      expect((await listGgufFiles(path.join(own, "home"))).map((f) => [f.name, f.problem])).toEqual([
        ["tiny-q4.gguf", undefined],
      ]);
      // Neither the link nor the file named .gguf: still refused, saying why.
      await symlink("../../blobs/5f1c0d3e9a", path.join(snapshot, "weights.bin"));
      await expect(addGgufFile(path.join(own, "home"), path.join(snapshot, "weights.bin"))).rejects.toThrow(
        "its name does not end in .gguf",
      );
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it("makes the models folder readable by its owner alone, and keeps the mode of one the person made", async () => {
    const own = await mkdtemp(path.join(os.tmpdir(), "lathe-models-mode-"));
    const modeOf = async (p: string) => (await stat(p)).mode & 0o777;
    try {
      await addGgufFile(own, TINY_GGUF);
      expect(await modeOf(path.join(own, "models"))).toBe(0o700);
      await rm(path.join(own, "models"), { recursive: true });
      await mkdir(path.join(own, "models"), { mode: 0o755 });
      await addGgufFile(own, TINY_GGUF);
      expect(await modeOf(path.join(own, "models"))).toBe(0o755);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it("lists a file in a folder below, and says which header cannot be read", async () => {
    await mkdir(path.join(home, "models", "broken"), { recursive: true });
    await writeFile(path.join(home, "models", "broken", "half.gguf"), "GGUF but nothing else");
    await writeFile(path.join(home, "models", "broken", "text.gguf"), "just text");
    const files = await listGgufFiles(home);
    expect(files.find((f) => f.name === "half.gguf")?.problem).toBe(
      "its GGUF version 1953849888 is not one Lathe reads (2 or 3)",
    );
    expect(files.find((f) => f.name === "text.gguf")?.problem).toBe("it does not start with the GGUF header");
  });

  // A link to a named pipe in the models folder hung the picker's list (and the app with it):
  // its header was opened and waited on for ever.
  it("lists a link to a pipe or a device as not a regular file, without opening it", async () => {
    const pipe = path.join(home, "pipe");
    execFileSync("mkfifo", [pipe]);
    await mkdir(path.join(home, "models", "odd"), { recursive: true });
    await symlink(pipe, path.join(home, "models", "odd", "pipe.gguf"));
    await symlink("/dev/zero", path.join(home, "models", "odd", "zero.gguf"));
    try {
      const files = await listGgufFiles(home);
      for (const name of ["pipe.gguf", "zero.gguf"])
        expect(files.find((f) => f.name === name)).toMatchObject({
          bytes: 0,
          problem: "it is not a regular file",
        });
    } finally {
      // Should a reader still wait on the pipe, a writer end lets it go, so the test process can exit.
      await (await open(pipe, constants.O_RDWR | constants.O_NONBLOCK)).close();
      await rm(path.join(home, "models", "odd"), { recursive: true, force: true });
    }
  }, 5_000);

  it.each([
    ["a relative path", "models/x.gguf", /is not an absolute path/],
    ["a missing file", "/nonexistent/lathe/x.gguf", /cannot be added: it does not exist/],
    ["a folder", os.tmpdir(), /cannot be added: it is not a file/],
  ])("refuses %s", async (_name, file, message) => {
    await expect(addGgufFile(home, file)).rejects.toThrow(message);
  });

  it("refuses a file that is not GGUF, and another file of the same name", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "lathe-not-gguf-"));
    try {
      await writeFile(path.join(dir, "fake.gguf"), "<html>not a model</html>");
      await expect(addGgufFile(home, path.join(dir, "fake.gguf"))).rejects.toThrow(
        /is not a GGUF model file/,
      );
      // A valid header, but not the file already added under that name.
      const header = Buffer.alloc(24);
      header.write("GGUF", 0, "latin1");
      header.writeUInt32LE(3, 4);
      await writeFile(path.join(dir, "llama-2-tiny-random.gguf"), header);
      await expect(addGgufFile(home, path.join(dir, "llama-2-tiny-random.gguf"))).rejects.toThrow(
        /already holds another file named llama-2-tiny-random\.gguf/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A GGUF file that is a header only: its metadata, no tensors (as a split model's later parts can be). */
function ggufHeader(metadata: Record<string, string | number>): Buffer {
  const chunks: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const u64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const text = (s: string) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
  chunks.push(Buffer.from("GGUF", "latin1"), u32(3), u64(0), u64(Object.keys(metadata).length));
  for (const [key, value] of Object.entries(metadata)) {
    chunks.push(text(key));
    // GGUF value types: 4 is uint32, 8 a string.
    chunks.push(
      typeof value === "number" ? Buffer.concat([u32(4), u32(value)]) : Buffer.concat([u32(8), text(value)]),
    );
  }
  // Room past the header, as a file with tensor data has.
  chunks.push(Buffer.alloc(64));
  return Buffer.concat(chunks);
}

describe("a GGUF model split into parts (llama.cpp's gguf-split)", () => {
  const first = ggufHeader({
    "general.architecture": "llama",
    "general.name": "Split Llama",
    "llama.context_length": 2048,
    "split.no": 0,
    "split.count": 3,
  });
  const later = (no: number) => ggufHeader({ "split.no": no, "split.count": 3 });

  async function splitHome(parts: number[]): Promise<string> {
    const own = await mkdtemp(path.join(os.tmpdir(), "lathe-split-"));
    await mkdir(path.join(own, "models", "qwen"), { recursive: true });
    for (const part of parts) {
      await writeFile(
        path.join(own, "models", "qwen", `qwen-big-0000${part}-of-00003.gguf`),
        part === 1 ? first : later(part - 1),
      );
    }
    return own;
  }

  it("lists one model per set, named by the set, picked by its first part, with all its parts' size", async () => {
    const own = await splitHome([1, 2, 3]);
    try {
      await symlink(TINY_GGUF, path.join(own, "models", "tiny.gguf"));
      const catalog = await detectModels({
        providers: {},
        latheHome: own,
        env: {},
        timeoutMs: 200,
        fetch: () => Promise.reject(Object.assign(new Error("offline"), { code: "ECONNREFUSED" })),
      });
      const firstPart = path.join(own, "models", "qwen", "qwen-big-00001-of-00003.gguf");
      expect(catalog.gguf.files.map((f) => f.id)).toEqual([
        `gguf:${firstPart}`,
        `gguf:${path.join(own, "models", "tiny.gguf")}`,
      ]);
      expect(catalog.gguf.files[0]).toEqual({
        id: `gguf:${firstPart}`,
        path: firstPart,
        name: "qwen-big (3 parts)",
        bytes: first.length + later(1).length + later(2).length,
        contextTokens: 2048,
        title: "Split Llama",
      });
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it("lists a set with a part missing once, saying which part, and not as runnable", async () => {
    const own = await splitHome([1, 3]);
    try {
      const files = await listGgufFiles(own);
      expect(files).toEqual([
        {
          path: path.join(own, "models", "qwen", "qwen-big-00001-of-00003.gguf"),
          name: "qwen-big (3 parts)",
          bytes: first.length + later(2).length,
          problem: "part 2 of 3 is missing (qwen-big-00002-of-00003.gguf): put it beside the other parts",
        },
      ]);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  // Adding the first part linked only that file: the model listed with its other parts missing.
  it("adds a split model by any of its parts: all parts are linked, the first is what is run", async () => {
    const own = await mkdtemp(path.join(os.tmpdir(), "lathe-split-add-"));
    const downloads = await splitHome([1, 2, 3]);
    try {
      const part = (n: number) => path.join(downloads, "models", "qwen", `qwen-big-0000${n}-of-00003.gguf`);
      const added = await addGgufFile(own, part(2));
      expect(added).toBe(path.join(own, "models", "qwen-big-00001-of-00003.gguf"));
      for (const n of [1, 2, 3]) {
        expect(await readlink(path.join(own, "models", `qwen-big-0000${n}-of-00003.gguf`))).toBe(
          await realpath(part(n)),
        );
      }
      expect(await listGgufFiles(own)).toEqual([
        expect.objectContaining({ path: added, name: "qwen-big (3 parts)", title: "Split Llama" }),
      ]);
      expect((await listGgufFiles(own))[0]).not.toHaveProperty("problem");
      // A set with a part missing is refused, naming it, and nothing of it is linked.
      await rm(part(3));
      const other = await mkdtemp(path.join(os.tmpdir(), "lathe-split-add-"));
      try {
        await expect(addGgufFile(other, part(1))).rejects.toThrow(
          `${part(1)} is one part of a model split in 3, and part 3 of 3 is missing (qwen-big-00003-of-00003.gguf): put it beside the other parts; then add it again.`,
        );
        expect(await listGgufFiles(other)).toEqual([]);
      } finally {
        await rm(other, { recursive: true, force: true });
      }
    } finally {
      await rm(own, { recursive: true, force: true });
      await rm(downloads, { recursive: true, force: true });
    }
  });

  it("lists a set whose first part is missing, by the first part's name, with the parts missing", async () => {
    const own = await splitHome([2]);
    try {
      const files = await listGgufFiles(own);
      expect(files).toEqual([
        expect.objectContaining({
          path: path.join(own, "models", "qwen", "qwen-big-00001-of-00003.gguf"),
          problem: "parts 1 and 3 of 3 are missing: put them beside the other parts",
        }),
      ]);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });
});
