// ollama_models: the models of the local Ollama server (GET /api/tags).
//
// runtime.net.fetch(url, {method, headers, body}) resolves to {status, headers, text}. It can
// reach only the hosts declared in tool.yaml (127.0.0.1 and localhost here); any other URL is
// refused before a byte is sent.

export async function execute(args, runtime) {
  const base = `http://127.0.0.1:${args.port ?? 11434}`;
  let response;
  try {
    response = await runtime.net.fetch(`${base}/api/tags`, { headers: { accept: "application/json" } });
  } catch (err) {
    throw new Error(
      `${err.message} Is Ollama running? Start it with \`ollama serve\`, or pass the port it listens on.`,
      { cause: err },
    );
  }
  if (response.status !== 200) {
    throw new Error(`Ollama at ${base} answered HTTP ${response.status}: ${response.text.slice(0, 200)}`);
  }
  let body;
  try {
    body = JSON.parse(response.text);
  } catch {
    throw new Error(
      `${base}/api/tags did not answer with JSON; is something other than Ollama listening there?`,
    );
  }
  const models = (Array.isArray(body.models) ? body.models : []).map((m) => ({
    name: String(m.name ?? m.model ?? "?"),
    size_mb: Math.round((Number(m.size) || 0) / (1024 * 1024)),
    modified_at: typeof m.modified_at === "string" ? m.modified_at : null,
    family: m.details?.family ?? null,
    parameter_size: m.details?.parameter_size ?? null,
    quantization: m.details?.quantization_level ?? null,
  }));
  return { models };
}
