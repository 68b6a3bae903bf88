interface Row {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

function rows(parameters: Record<string, unknown>): Row[] {
  const properties = (parameters["properties"] ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(parameters["required"]) ? (parameters["required"] as string[]) : []);
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    type: typeLabel(schema),
    required: required.has(name),
    description: typeof schema["description"] === "string" ? schema["description"] : "",
  }));
}

function typeLabel(schema: Record<string, unknown>): string {
  if (Array.isArray(schema["enum"])) return schema["enum"].map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(schema["type"])) return schema["type"].join(" | ");
  return typeof schema["type"] === "string" ? schema["type"] : "any";
}

/**
 * A tool's parameters as a table a person can read while writing the JSON; in a narrow view its
 * cells wrap, and a name too long even for that scrolls the table inside its frame.
 */
export function ParametersTable({ parameters }: { parameters: Record<string, unknown> }) {
  const list = rows(parameters);
  if (list.length === 0) return <p className="muted">This tool takes no parameters.</p>;
  return (
    <div className="params-frame">
      <table className="params" aria-label="Parameters">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {list.map((row) => (
            <tr key={row.name}>
              <td>
                <code>{row.name}</code>
                {row.required ? <span className="required"> required</span> : null}
              </td>
              <td>
                <code>{row.type}</code>
              </td>
              <td>{row.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
