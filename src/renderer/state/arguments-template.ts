/**
 * A starting point for a tool's JSON arguments, from its JSON Schema: every required property
 * with an empty value of its type, so a person sees at once what the tool needs.
 */
export function argumentsTemplate(parameters: Record<string, unknown>): string {
  const properties = isRecord(parameters["properties"]) ? parameters["properties"] : {};
  const required = Array.isArray(parameters["required"]) ? parameters["required"] : [];
  const template: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name !== "string") continue;
    const schema = properties[name];
    template[name] = emptyValue(isRecord(schema) ? schema : {});
  }
  return JSON.stringify(template, null, 2);
}

function emptyValue(schema: Record<string, unknown>): unknown {
  const type = Array.isArray(schema["type"]) ? schema["type"][0] : schema["type"];
  switch (type) {
    case "integer":
    case "number":
      return typeof schema["minimum"] === "number" ? schema["minimum"] : 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return Array.isArray(schema["enum"]) && schema["enum"].length > 0 ? schema["enum"][0] : "";
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
