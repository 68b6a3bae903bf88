import type { CatalogModel, ModelCatalog } from "../../shared/model-catalog-schemas.ts";

/** A model the picker shows, wherever it was found. */
export interface ModelEntry extends CatalogModel {
  /** Where it comes from, for the button: "Ollama", "GGUF file", "Anthropic". */
  source: string;
}

/** Every model the catalog offers, in the picker's order. */
export function catalogModels(catalog: ModelCatalog | undefined): ModelEntry[] {
  if (!catalog) return [];
  return [
    ...catalog.local.flatMap((server) => server.models.map((m) => ({ ...m, source: server.label }))),
    ...catalog.gguf.files
      .filter((f) => f.problem === undefined)
      .map((f) => ({
        id: f.id,
        name: f.name,
        source: "GGUF file",
        ...(f.contextTokens !== undefined ? { contextTokens: f.contextTokens } : {}),
      })),
    ...catalog.cloud.flatMap((c) => c.models.map((m) => ({ ...m, source: c.label }))),
  ];
}

/** The picked model as the catalog knows it, or a bare entry for one typed by hand. */
export function modelEntry(catalog: ModelCatalog | undefined, id: string): ModelEntry | undefined {
  if (id === "") return undefined;
  const known = catalogModels(catalog).find((m) => m.id === id);
  if (known) return known;
  const colon = id.indexOf(":");
  return {
    id,
    name: colon === -1 ? id : id.slice(colon + 1),
    source: colon === -1 ? "" : id.slice(0, colon),
  };
}

/** A token count as people read it: 950, 12.3k, 131k, 1.05M. */
export function formatTokens(tokens: number): string {
  if (tokens < 1_000) return String(tokens);
  if (tokens < 100_000) return `${(tokens / 1_000).toFixed(1).replace(/\.0$/, "")}k`;
  if (tokens < 1_000_000) return `${Math.round(tokens / 1_000)}k`;
  return `${(tokens / 1_000_000).toFixed(2).replace(/\.?0+$/, "")}M`;
}

/** A file size as people read it. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** Whether a model matches what the person typed in the picker's filter. */
export function matchesFilter(model: ModelEntry, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${model.id} ${model.source}`.toLowerCase();
  return words.every((w) => text.includes(w));
}
